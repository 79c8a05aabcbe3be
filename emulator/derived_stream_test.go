package emulator_test

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/fabrictest/fabrictest/emulator"
	"github.com/fabrictest/fabrictest/emulator/internal/store"
	"github.com/fabrictest/fabrictest/fabrictest"
)

// derivedTopology: a CustomEndpoint source into the DefaultStream "main",
// a Filter keeping temp > 20, the DerivedStream "hot" behind it, read by a
// Lakehouse and by a CustomEndpoint destination.
func derivedTopology(ws, lh string) map[string]any {
	in := func(name string) []any { return []any{map[string]any{"name": name}} }
	return map[string]any{
		"sources": []any{map[string]any{"name": "app", "type": "CustomEndpoint", "properties": map[string]any{}}},
		"streams": []any{
			map[string]any{"name": "main", "type": "DefaultStream", "properties": map[string]any{}, "inputNodes": in("app")},
			map[string]any{"name": "hot", "type": "DerivedStream", "properties": map[string]any{"inputSerialization": map[string]any{"type": "Json"}}, "inputNodes": in("warm")},
		},
		"operators": []any{map[string]any{"name": "warm", "type": "Filter", "inputNodes": in("main"), "properties": map[string]any{"conditions": []any{
			map[string]any{"column": map[string]any{"columnName": "temp"}, "operatorType": "GreaterThan", "value": map[string]any{"dataType": "BigInt", "value": "20"}},
		}}}},
		"destinations": []any{
			map[string]any{"name": "lake", "type": "Lakehouse", "properties": map[string]any{"workspaceId": ws, "itemId": lh, "deltaTable": "hot", "minimumRows": 1 /* commit each batch: not a batching test */}, "inputNodes": in("hot")},
			map[string]any{"name": "out", "type": "CustomEndpoint", "properties": map[string]any{}, "inputNodes": in("hot")},
		},
	}
}

type derivedFixture struct {
	e                   *testEnv
	ws, lh, id, base    string
	ds, hot, hotTopic   string // the DefaultStream's id, the DerivedStream's id and topic
	src, out, lake, dir string
}

func deployDerived(t *testing.T, opts ...emulator.Option) derivedFixture {
	t.Helper()
	e := startEnv(t, opts...)
	f := derivedFixture{e: e, ws: e.workspace("derived")}
	lh := e.must(201, e.call("POST", "/v1/workspaces/"+f.ws+"/lakehouses", map[string]any{"displayName": "lh"}))
	f.lh, f.dir = lh.str("id"), filepath.Join(lh.Body["properties"].(map[string]any)["x-fabrictest-localTablesPath"].(string), "hot")
	es := e.must(201, e.call("POST", "/v1/workspaces/"+f.ws+"/eventstreams", map[string]any{"displayName": "derived", "definition": definitionOf(derivedTopology(f.ws, f.lh), nil)}))
	f.id, f.base = es.str("id"), "/v1/workspaces/"+f.ws+"/eventstreams/"+es.str("id")
	streams := es.Body["properties"].(map[string]any)["streams"].([]any)
	if len(streams) != 2 {
		t.Fatalf("streams %v, want the DefaultStream and the DerivedStream", streams)
	}
	s0, s1 := streams[0].(map[string]any), streams[1].(map[string]any)
	f.ds, f.hot, f.hotTopic = s0["id"].(string), s1["id"].(string), s1["topic"].(string)
	if s1["type"] != "DerivedStream" || s1["name"] != "hot" || f.hotTopic != f.id+"."+f.hot {
		t.Fatalf("derived stream %v", s1)
	}
	tp := e.must(200, e.call("GET", f.base+"/topology", nil)).Body
	if nodesByName(tp, "streams")["hot"]["id"] != f.hot {
		t.Fatalf("topology streams %v", tp["streams"])
	}
	f.src = nodesByName(tp, "sources")["app"]["id"].(string)
	f.out = nodesByName(tp, "destinations")["out"]["id"].(string)
	f.lake = nodesByName(tp, "destinations")["lake"]["id"].(string)
	return f
}

// produceTemps produces {"temp": n} events through the source over HTTP.
func (f derivedFixture) produceTemps(temps ...int) {
	f.e.t.Helper()
	var evs []string
	for _, n := range temps {
		evs = append(evs, fmt.Sprintf(`{"value":{"temp":%d}}`, n))
	}
	f.e.must(200, f.e.call("POST", f.base+"/sources/"+f.src+"/events", `{"events":[`+strings.Join(evs, ",")+`]}`))
}

// derivedRecord is a record of the derived topic, as the consume route
// answers it.
type derivedRecord struct{ fabrictest.Record }

func (r derivedRecord) temp(t *testing.T) int {
	t.Helper()
	var v struct{ Temp int }
	if err := json.Unmarshal(r.Value, &v); err != nil {
		t.Fatalf("record value %q: %v", r.Value, err)
	}
	return v.Temp
}

// mark is the record's (seq, index) headers.
func (r derivedRecord) mark(t *testing.T) [2]int64 {
	t.Helper()
	var m [2]int64
	found := 0
	for _, h := range r.Headers {
		i := slices.Index([]string{"fabric-emulator-seq", "fabric-emulator-index"}, h.Key)
		if i < 0 {
			continue
		}
		n, err := strconv.ParseInt(string(h.Value), 10, 64)
		if err != nil {
			t.Fatalf("header %s = %q", h.Key, h.Value)
		}
		m[i] = n
		found++
	}
	if found != 2 {
		t.Fatalf("record at offset %d has headers %v, want the seq and index", r.Offset, r.Headers)
	}
	return m
}

// consumeDerived reads the derived topic with the notebook consume route,
// waiting up to timeoutMs for it to reach want records.
func (f derivedFixture) consumeDerived(want, timeoutMs int) []derivedRecord {
	f.e.t.Helper()
	end := fmt.Sprintf(`{"0":%d}`, want)
	r := f.e.must(200, f.e.call("GET", fmt.Sprintf("/v1/eventstreams/%s/sources/%s/events?endingOffsets=%s&timeoutMs=%d", f.id, f.hot, end, timeoutMs), nil))
	var out struct {
		Value []derivedRecord `json:"value"`
	}
	if err := json.Unmarshal(r.Raw, &out); err != nil {
		f.e.t.Fatal(err)
	}
	return out.Value
}

func temps(t *testing.T, rs []derivedRecord) []int {
	t.Helper()
	out := make([]int, len(rs))
	for i, r := range rs {
		out[i] = r.temp(t)
		if r.Partition != 0 {
			t.Fatalf("record %d in partition %d; a derived topic has one", i, r.Partition)
		}
	}
	return out
}

// TestDerivedStreamTopic: a DerivedStream's topic holds exactly the
// filtered rows, read by the consume route and through a CustomEndpoint
// destination's connection; its internal binding is never listed; it
// pauses with the Eventstream, refuses produce, and its topic goes with it.
func TestDerivedStreamTopic(t *testing.T) {
	f := deployDerived(t)
	e := f.e
	f.produceTemps(10, 25, 30, 5, 21, 20)

	// The consume route on the DerivedStream's id: the filtered rows, in
	// order, one partition, each with its batch's (seq, index).
	recs := f.consumeDerived(3, 5000)
	if got := temps(t, recs); fmt.Sprint(got) != "[25 30 21]" {
		t.Fatalf("derived topic holds %v, want [25 30 21]", got)
	}
	for i, r := range recs {
		if m := r.mark(t); m != [2]int64{1, int64(i)} {
			t.Fatalf("record %d has (seq, index) %v, want (1, %d)", i, m, i)
		}
	}
	res := e.must(200, e.call("GET", "/v1/eventstreams/"+f.id+"/sources/"+f.hot, nil))
	if res.str("topic") != f.hotTopic || res.str("datasourceId") != f.hot {
		t.Fatalf("resolve %s", res.Raw)
	}

	// The Lakehouse behind the DerivedStream gets the same rows.
	var lakeTemps []string
	for _, r := range readTable(t, f.dir).Rows {
		lakeTemps = append(lakeTemps, fmt.Sprint(r["temp"]))
	}
	sort.Strings(lakeTemps)
	if strings.Join(lakeTemps, ",") != "21,25,30" {
		t.Fatalf("lakehouse rows %v", lakeTemps)
	}

	// The CustomEndpoint destination reads the derived topic with its
	// connection string, in its $Default group.
	c := endpointConn(t, e, f.base+"/destinations/"+f.out+"/connection")
	if c.EventHubName != f.hotTopic || !strings.HasSuffix(c.AccessKeys.PrimaryConnectionString, ";EntityPath="+f.hotTopic) {
		t.Fatalf("destination connection %+v, want EntityPath %s", c, f.hotTopic)
	}
	if src := endpointConn(t, e, f.base+"/sources/"+f.src+"/connection"); src.EventHubName != f.id+"."+f.ds {
		t.Fatalf("source connection names %s, want the DefaultStream's topic", src.EventHubName)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cons := saslClient(t, c.FullyQualifiedNamespace, c.AccessKeys.PrimaryConnectionString, kgo.ConsumeTopics(c.EventHubName),
		kgo.ConsumerGroup(*c.ConsumerGroupName), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	var viaKafka []string
	for len(viaKafka) < 3 {
		fs := cons.PollFetches(ctx)
		if err := fs.Err0(); err != nil {
			t.Fatalf("consume through the endpoint after %d: %v", len(viaKafka), err)
		}
		fs.EachRecord(func(r *kgo.Record) { viaKafka = append(viaKafka, string(r.Value)) })
	}
	if strings.Join(viaKafka, " ") != `{"temp":25} {"temp":30} {"temp":21}` {
		t.Fatalf("read through the CustomEndpoint destination: %v", viaKafka)
	}

	// The internal binding is invisible: not listed, not in the topology's
	// destinations, not addressable as a destination.
	list := e.must(200, e.call("GET", f.base+"/destinations", nil)).Body["value"].([]any)
	if len(list) != 1 || list[0].(map[string]any)["id"] != f.lake {
		t.Fatalf("destinations %v, want the Lakehouse alone", list)
	}
	tp := e.must(200, e.call("GET", f.base+"/topology", nil)).Body
	var names []string
	for _, n := range tp["destinations"].([]any) {
		names = append(names, n.(map[string]any)["name"].(string))
		if n.(map[string]any)["id"] == f.hot {
			t.Fatalf("topology lists the internal binding: %v", n)
		}
	}
	if sort.Strings(names); strings.Join(names, ",") != "lake,out" {
		t.Fatalf("topology destinations %v", names)
	}
	e.wantError(e.call("GET", f.base+"/destinations/"+f.hot, nil), 404, "DestinationNotFound")
	e.wantError(e.call("DELETE", f.base+"/destinations/"+f.hot, nil), 404, "DestinationNotFound")
	e.wantError(e.call("POST", f.base+"/destinations/"+f.hot+"/pause", nil), 404, "DestinationNotFound")

	// A DerivedStream is read-only.
	e.wantError(e.call("POST", f.base+"/sources/"+f.hot+"/events", `{"events":[{"value":{"temp":99}}]}`), 400, "DerivedStreamIsReadOnly")

	// Unbinding every destination leaves the DerivedStream's binding.
	e.must(200, e.call("DELETE", f.base+"/destinations", nil))
	f.produceTemps(40)
	if got := temps(t, f.consumeDerived(4, 5000)); fmt.Sprint(got) != "[25 30 21 40]" {
		t.Fatalf("after unbind-all the derived topic holds %v", got)
	}

	// Pausing the Eventstream pauses the DerivedStream's drain: an event
	// written into the DefaultStream's topic by a plain Kafka client stays
	// out of the derived topic until resume.
	bootstrap := strings.Split(res.str("bootstrapServers"), ",")
	kc, err := kgo.NewClient(kgo.SeedBrokers(bootstrap...))
	if err != nil {
		t.Fatal(err)
	}
	defer kc.Close()
	e.must(200, e.call("POST", f.base+"/pause", nil))
	if err := kc.ProduceSync(ctx, &kgo.Record{Topic: f.id + "." + f.ds, Value: []byte(`{"temp":77}`)}).FirstErr(); err != nil {
		t.Fatal(err)
	}
	if got := f.consumeDerived(5, 700); len(got) != 4 {
		t.Fatalf("a paused Eventstream's derived topic grew to %v", temps(t, got))
	}
	e.must(200, e.call("POST", f.base+"/resume", map[string]any{"startType": "WhenLastStopped"}))
	if got := temps(t, f.consumeDerived(5, 10000)); fmt.Sprint(got) != "[25 30 21 40 77]" {
		t.Fatalf("after resume the derived topic holds %v", got)
	}

	// updateDefinition without the DerivedStream deletes its topic; its id
	// no longer resolves.
	topo := derivedTopology(f.ws, f.lh)
	topo["streams"] = topo["streams"].([]any)[:1]
	topo["operators"] = []any{}
	topo["destinations"] = topo["destinations"].([]any)[:1]
	topo["destinations"].([]any)[0].(map[string]any)["inputNodes"] = []any{map[string]any{"name": "main"}}
	e.must(200, e.call("POST", f.base+"/updateDefinition", map[string]any{"definition": definitionOf(topo, nil)}))
	topics, err := kadm.NewClient(kc).ListTopics(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if topics.Has(f.hotTopic) || !topics.Has(f.id+"."+f.ds) {
		t.Fatalf("topics after the update: %v", topics.Names())
	}
	e.wantError(e.call("GET", "/v1/eventstreams/"+f.id+"/sources/"+f.hot+"/events", nil), 404, "DatasourceNotFound")
	if streams := e.must(200, e.call("GET", f.base, nil)).Body["properties"].(map[string]any)["streams"].([]any); len(streams) != 1 {
		t.Fatalf("streams after the update %v", streams)
	}
}

// endpointConn reads a connection answer.
func endpointConn(t *testing.T, e *testEnv, path string) connectionJSON {
	t.Helper()
	var c connectionJSON
	if err := json.Unmarshal(e.must(200, e.call("GET", path, nil)).Raw, &c); err != nil {
		t.Fatal(err)
	}
	return c
}

// TestDerivedStreamCustomEndpointBehindOperator: a CustomEndpoint
// destination must read a stream; one reading an operator is refused with
// the way out.
func TestDerivedStreamCustomEndpointBehindOperator(t *testing.T) {
	e := startEnv(t)
	ws := e.workspace("refuse")
	lh := e.must(201, e.call("POST", "/v1/workspaces/"+ws+"/lakehouses", map[string]any{"displayName": "lh"})).str("id")
	topo := derivedTopology(ws, lh)
	topo["destinations"].([]any)[1].(map[string]any)["inputNodes"] = []any{map[string]any{"name": "warm"}}
	r := e.call("POST", "/v1/workspaces/"+ws+"/eventstreams", map[string]any{"displayName": "ce", "definition": definitionOf(topo, nil)})
	e.wantError(r, 400, "InvalidInput")
	if !strings.Contains(r.str("message"), "put a DerivedStream between") {
		t.Fatalf("message %q does not say what to do", r.str("message"))
	}
}

// pendingRow is one row of a journalled batch (the emulator's store
// format for a destination's pending batch).
type pendingRow struct {
	Row       map[string]any `json:"row"`
	Value     []byte         `json:"value"`
	Partition int32          `json:"partition"`
	Offset    int64          `json:"offset"`
}

// TestDerivedStreamExactlyOnceAfterCrash: the emulator "crashes" after
// writing a batch into the derived topic but before clearing its journal,
// once after the whole batch and once after its first record; on restart
// the journalled batches are written again and land once.
func TestDerivedStreamExactlyOnceAfterCrash(t *testing.T) {
	c, seeds := kafkaCluster(t)
	dir := t.TempDir()
	f := deployDerived(t, emulator.WithKafka(seeds), emulator.WithDataDir(dir))
	f.produceTemps(10, 25, 30, 21)
	first := f.consumeDerived(3, 5000)
	if got := temps(t, first); fmt.Sprint(got) != "[25 30 21]" {
		t.Fatalf("derived topic %v", got)
	}

	// restart closes the emulator, lets crash change its journal, and
	// starts it again on the same data directory and cluster.
	restart := func(crash func(st *store.Store, j store.Journal) store.Journal) {
		t.Helper()
		f.e.srv.Close()
		st, err := store.Open(dir)
		if err != nil {
			t.Fatal(err)
		}
		j, err := st.GetJournal(context.Background(), f.hot)
		if err != nil {
			t.Fatal(err)
		}
		if err := st.PutJournal(context.Background(), crash(st, j)); err != nil {
			t.Fatal(err)
		}
		st.Close()
		f.e = startEnv(t, emulator.WithKafka(seeds), emulator.WithDataDir(dir))
	}
	pending := func(rs []pendingRow) []byte {
		b, err := json.Marshal(rs)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	row := func(temp int) pendingRow {
		v := fmt.Appendf(nil, `{"temp":%d}`, temp)
		return pendingRow{Row: map[string]any{"temp": temp}, Value: v, Partition: -1, Offset: -1}
	}

	// 1. The whole batch 1 was written; the journal still holds it.
	restart(func(_ *store.Store, j store.Journal) store.Journal {
		if j.Seq != 1 || j.Pending != nil {
			t.Fatalf("journal seq %d pending %q, want seq 1 cleared", j.Seq, j.Pending)
		}
		var rs []pendingRow
		for _, r := range first {
			rs = append(rs, row(r.temp(t)))
		}
		j.Pending = pending(rs)
		return j
	})
	f.produceTemps(50)
	if got := temps(t, f.consumeDerived(5, 1000)); fmt.Sprint(got) != "[25 30 21 50]" {
		t.Fatalf("after replaying a written batch the derived topic holds %v", got)
	}

	// 2. Batch 3 was journalled and its first record written when the
	// emulator stopped.
	cl, err := kgo.NewClient(kgo.SeedBrokers(c.ListenAddrs()...))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	restart(func(_ *store.Store, j store.Journal) store.Journal {
		if j.Seq != 2 || j.Pending != nil {
			t.Fatalf("journal seq %d pending %q, want seq 2 cleared", j.Seq, j.Pending)
		}
		rec := &kgo.Record{Topic: f.hotTopic, Value: []byte(`{"temp":41}`), Headers: []kgo.RecordHeader{
			{Key: "fabric-emulator-seq", Value: []byte("3")}, {Key: "fabric-emulator-index", Value: []byte("0")}}}
		if err := cl.ProduceSync(context.Background(), rec).FirstErr(); err != nil {
			t.Fatal(err)
		}
		j.Seq, j.Pending = 3, pending([]pendingRow{row(41), row(42), row(43)})
		return j
	})
	f.produceTemps(60, 1)
	recs := f.consumeDerived(8, 5000)
	if got := temps(t, recs); fmt.Sprint(got) != "[25 30 21 50 41 42 43 60]" {
		t.Fatalf("after replaying a half-written batch the derived topic holds %v", got)
	}
	var marks []string
	for _, r := range recs {
		m := r.mark(t)
		marks = append(marks, fmt.Sprintf("%d/%d", m[0], m[1]))
	}
	if strings.Join(marks, " ") != "1/0 1/1 1/2 2/0 3/0 3/1 3/2 4/0" {
		t.Fatalf("(seq/index) of the derived records: %v", marks)
	}
	// The Lakehouse behind it, journalled on its own, has each row once.
	if n := len(readTable(t, f.dir).Rows); n != 5 {
		t.Fatalf("lakehouse has %d rows, want 5", n)
	}

	// Deleting the Eventstream deletes the derived topic with the rest.
	f.e.must(200, f.e.call("DELETE", f.base, nil))
	topics, err := kadm.NewClient(cl).ListTopics(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if topics.Has(f.hotTopic) || topics.Has(f.id+"."+f.ds) {
		t.Fatalf("topics after deleting the Eventstream: %v", topics.Names())
	}
}
