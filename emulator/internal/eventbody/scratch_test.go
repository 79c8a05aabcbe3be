package eventbody

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
)

// A produce call's pooled buffers carry nothing of the last call into the
// next: no key, header, partition or offset of an earlier record.
func TestScratchReuseStartsEmpty(t *testing.T) {
	now := time.UnixMilli(1_700_000_000_000)
	sc := new(Scratch)
	first := `{"events":[{"key":"k","value":1,"headers":{"h":"v"},"timestamp":1600000000000},{"key":"k2","value":2}]}`
	records, err := Parse([]byte(first), now, sc)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range records { // as the producer leaves them
		r.Partition, r.Offset, r.ProducerID = 3, 99, 7
	}
	if !sc.reset() {
		t.Fatal("a small call's buffers were not kept")
	}
	records, err = Parse([]byte(`{"events":[{"value":"a"},{"value":"b"}]}`), now, sc)
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range records {
		want := kgo.Record{Value: []byte{byte('a' + i)}, Timestamp: now}
		if !reflect.DeepEqual(*r, want) {
			t.Errorf("record %d after reuse = %+v, want %+v", i, *r, want)
		}
	}
}

// A rare large call's buffers go to the collector, not back to the pool.
func TestScratchKeepsOnlySmallCalls(t *testing.T) {
	sc := &Scratch{Body: make([]byte, 0, maxPooledBody+1)}
	if sc.reset() {
		t.Error("a body buffer over the bound was kept")
	}
	body := `{"events":[` + strings.Repeat(`{"value":1},`, maxPooledEvents) + `{"value":1}]}`
	sc = new(Scratch)
	if _, err := Parse([]byte(body), time.Now(), sc); err != nil {
		t.Fatal(err)
	}
	if sc.reset() {
		t.Errorf("%d records were kept, over the bound of %d", len(sc.slab), maxPooledEvents)
	}
}
