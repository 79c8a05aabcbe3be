package emulator_test

import (
	"bytes"
	"fmt"
	"sort"
	"strings"
	"testing"
)

// produceEventHubs sends values in one batch through the custom
// endpoint's Event Hubs protocol: azeventhubs with the source's
// primaryConnectionString, unchanged.
func (f formatFixture) produceEventHubs(t *testing.T, values ...[]byte) {
	t.Helper()
	ctx := ehContext(t)
	bodies := make([]string, len(values))
	for i, v := range values {
		bodies[i] = string(v) // the bytes unchanged
	}
	if err := ehSend(ctx, ehProducer(t, f.password), nil, nil, bodies...); err != nil {
		t.Fatalf("send through the Event Hubs protocol: %v", err)
	}
}

// TestAvroFromEventHubsSDKReachesLakehouse: Avro container files, one
// written by fastavro and one by the Go writer, sent with the Event Hubs
// SDK to a source declaring Avro, give typed rows; an event that is not
// Avro is dropped and counted; the consume route reads every body byte
// for byte.
func TestAvroFromEventHubsSDKReachesLakehouse(t *testing.T) {
	f := deployFormat(t, map[string]any{"type": "Avro", "properties": map[string]any{}})
	py := fastavroWrite(t, sensorSchema, "", `{"id":31,"temp":0.5,"city":"p","at":1700000000000}`)[0]
	goFile, notAvro := sensorFile(t, 1), []byte(`{"id":32}`)
	f.produceEventHubs(t, py, goFile, notAvro)
	f.wantSensorRows(t, 2, "1/1.5/c1 31/0.5/p")
	want := [][]byte{py, goFile, notAvro}
	sort.Slice(want, func(i, j int) bool { return bytes.Compare(want[i], want[j]) < 0 })
	read := f.consumedValues(3)
	if len(read) != 3 {
		t.Fatalf("consume route read %d values, want 3", len(read))
	}
	for i := range want {
		if !bytes.Equal(read[i], want[i]) {
			t.Fatalf("consume route value %d differs from the body sent", i)
		}
	}
	wantMetrics(t, f.s.metricsOf("destinations", f.lake), map[string]int64{"InputEvents": 3, "OutputEvents": 2, "DeserializationErrors": 1})
}

// TestCSVFromEventHubsSDKReachesLakehouse: CSV events sent with the Event
// Hubs SDK to a source declaring Csv with headers give one text row per
// line, its columns named by the event's header line.
func TestCSVFromEventHubsSDKReachesLakehouse(t *testing.T) {
	f := deployFormat(t, map[string]any{"type": "Csv", "properties": map[string]any{"fieldDelimiter": ",", "format": "WithHeaders", "encoding": "UTF8"}})
	f.produceEventHubs(t, []byte("city,temp\nOSL,-3\nRIO,31\n"), []byte("city,temp\nNYC,12\n"))
	waitRows(t, f.table, 3)
	snap := readTable(t, f.table)
	var got []string
	for _, r := range snap.Rows {
		got = append(got, fmt.Sprintf("%v=%v", r["city"], r["temp"]))
	}
	sort.Strings(got)
	if strings.Join(got, " ") != "NYC=12 OSL=-3 RIO=31" {
		t.Fatalf("rows %v", got)
	}
	wantMetrics(t, f.s.metricsOf("destinations", f.lake), map[string]int64{"InputEvents": 2, "OutputEvents": 3})
}
