package pipeline

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fabrictest/fabrictest/emulator/rows"
)

// The pipelines the invariance and restart tests run.
var scenarios = []struct {
	name, ops string
}{
	{"event-time hopping", `[
		{"type":"Filter","condition":{"or":[{"field":"ok","op":"eq","value":true},{"field":"v","op":"gt","value":90}]}},
		{"type":"ManageFields","drop":["ok"],"cast":{"v":"double"},"rename":{"dev":"device"}},
		{"type":"GroupBy","keys":["device"],"aggregates":[{"fn":"count","as":"n"},{"fn":"sum","field":"v"},
			{"fn":"min","field":"v"},{"fn":"max","field":"v"},{"fn":"avg","field":"v"}],
			"window":{"kind":"hopping","duration":"1m","hop":"20s","on":"ts","allowedLateness":"10s"}},
		{"type":"Filter","condition":{"field":"n","op":"gte","value":2}}]`},
	{"arrival-time tumbling (seed shape)", `[
		{"type":"Window","kind":"tumbling","duration":"30s"},
		{"type":"GroupBy","keys":["_window_start","dev"],"aggregates":[{"fn":"count","as":"n"},{"fn":"sum","field":"v","as":"total"}]}]`},
	{"stateless", `[{"type":"Filter","condition":{"field":"ok","op":"eq","value":true}},{"type":"ManageFields","keep":["dev","v"]}]`},
	{"computed fields", `[{"type":"ManageFields","keep":["v"],"compute":[
		{"fn":"Concat","args":[{"field":"dev"},{"literal":"@"},{"field":"ts"}],"as":"key"},
		{"fn":"Round","args":[{"field":"v"},{"literal":-1}],"as":"v10"},
		{"fn":"Substring","args":[{"field":"ts"},{"literal":12},{"literal":5}],"as":"hhmm"}]},
		{"type":"Filter","condition":{"field":"v10","op":"gte","value":50}}]`},
	{"rolling aggregate on event time", `[
		{"type":"Filter","condition":{"field":"ok","op":"eq","value":true}},
		{"type":"Aggregate","on":"ts","allowedLateness":"15s","aggregates":[
			{"fn":"Average","field":"v","partitionBy":["dev"],"duration":"1m"},
			{"fn":"count","partitionBy":["dev"],"duration":"30s","as":"n"},
			{"fn":"sum","field":"v","duration":"20s"},
			{"fn":"Minimum","field":"v","partitionBy":["dev"],"duration":"2m"},
			{"fn":"Maximum","field":"v","duration":{"value":45,"unit":"Second"}}]}]`},
	{"rolling aggregate on arrival time into GroupBy", `[
		{"type":"Aggregate","aggregates":[{"fn":"sum","field":"v","partitionBy":["dev"],"duration":"30s","as":"s30"}]},
		{"type":"GroupBy","keys":["dev"],"aggregates":[{"fn":"max","field":"s30"},{"fn":"count","as":"n"}],
			"window":{"kind":"tumbling","duration":"1m"}}]`},
}

// stream is a deterministic stream on two partitions: event times drift
// forward ~5s a record with jitter up to 25s back, now and then 90s (late), values
// of mixed types, record timestamps that follow event time.
func stream(n int, seed uint64) []Event {
	r := rand.New(rand.NewPCG(seed, 1))
	var out []Event
	offsets := [2]int64{}
	for i := range n {
		jitter := time.Duration(r.IntN(25)) * time.Second
		if r.IntN(12) == 0 {
			jitter = 90 * time.Second // late beyond any allowed lateness here
		}
		et := t0.Add(time.Duration(i)*5*time.Second - jitter)
		var v string
		switch r.IntN(6) {
		case 0:
			v = `"v":"n/a",`
		case 1:
			v = ""
		case 2:
			v = fmt.Sprintf(`"v":%d.5,`, r.IntN(100))
		default:
			v = fmt.Sprintf(`"v":%d,`, r.IntN(100))
		}
		doc := fmt.Sprintf(`{%s"dev":"d%d","ok":%v,"ts":%q}`, v, r.IntN(3), r.IntN(5) != 0, et.Format(time.RFC3339))
		part := int32(r.IntN(2))
		out = append(out, Event{Row: row(doc), Timestamp: t0.Add(time.Duration(i) * 5 * time.Second), Partition: part, Offset: offsets[part]})
		offsets[part]++
	}
	return out
}

// splits cuts events into batches at random points.
func splits(evs []Event, seed uint64) [][]Event {
	r := rand.New(rand.NewPCG(seed, 2))
	var out [][]Event
	for len(evs) > 0 {
		n := 1 + r.IntN(min(len(evs), 40))
		out = append(out, evs[:n])
		evs = evs[n:]
	}
	return out
}

func newScenario(t *testing.T, ops string) *Pipeline {
	t.Helper()
	p := mustPipeline(t, ops)
	p.ExpectPartitions(0, 1)
	return p
}

// drain feeds batches and flushes with a far wall clock at the end.
func drain(p *Pipeline, batches [][]Event) []string {
	var out []rows.Row
	for _, b := range batches {
		out = append(out, p.Process(b)...)
	}
	out = append(out, p.Advance(t0.Add(1000*time.Hour))...)
	return texts(out)
}

func TestBatchingInvariance(t *testing.T) {
	evs := stream(400, 1)
	for _, sc := range scenarios {
		t.Run(sc.name, func(t *testing.T) {
			one := newScenario(t, sc.ops)
			want := drain(one, [][]Event{evs})
			wantStats := one.Stats()
			if len(want) < 10 {
				t.Fatalf("scenario produced only %d rows", len(want))
			}
			var single [][]Event
			for _, e := range evs {
				single = append(single, []Event{e})
			}
			cases := map[string][][]Event{"one per batch": single}
			for seed := range uint64(10) {
				cases[fmt.Sprintf("random split %d", seed)] = splits(evs, seed)
			}
			for name, batches := range cases {
				p := newScenario(t, sc.ops)
				if got := drain(p, batches); !equalTexts(got, want) {
					t.Fatalf("%s: %d rows differ from one batch's %d\nfirst difference: %s", name, len(got), len(want), firstDiff(got, want))
				}
				if got := p.Stats(); got != wantStats {
					t.Fatalf("%s: stats %+v, want %+v", name, got, wantStats)
				}
			}
			t.Logf("%d rows; stats %+v", len(want), wantStats)
		})
	}
}

func firstDiff(a, b []string) string {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return fmt.Sprintf("#%d\n got %s\nwant %s", i, a[i], b[i])
		}
	}
	return "one is a prefix of the other"
}

// step is one drain iteration: a batch, then Advance to the batch's last
// record timestamp plus a little.
func runSteps(p *Pipeline, batches [][]Event) []rows.Row {
	var out []rows.Row
	for _, b := range batches {
		out = append(out, p.Process(b)...)
		out = append(out, p.Advance(b[len(b)-1].Timestamp.Add(3*time.Second))...)
	}
	return out
}

func TestRestartMidWindow(t *testing.T) {
	evs := stream(300, 2)
	for _, sc := range scenarios {
		t.Run(sc.name, func(t *testing.T) {
			batches := splits(evs, 3)
			whole := newScenario(t, sc.ops)
			want := texts(append(runSteps(whole, batches), whole.Advance(t0.Add(1000*time.Hour))...))
			for cut := 1; cut < len(batches); cut++ {
				first := newScenario(t, sc.ops)
				out := runSteps(first, batches[:cut])
				snap, err := first.Snapshot()
				if err != nil {
					t.Fatal(err)
				}
				// A new process: build from the same operators, restore.
				second, err := New(mustParse(t, sc.ops))
				if err != nil {
					t.Fatal(err)
				}
				if err := second.Restore(snap); err != nil {
					t.Fatalf("cut %d: %v", cut, err)
				}
				// Resume at the snapshot's offsets, replaying a few records
				// before them as a consumer at its committed offset would.
				resume := second.Offsets()
				var again [][]Event
				again = append(again, replayed(batches[:cut], resume)...)
				again = append(again, batches[cut:]...)
				out = append(out, runSteps(second, again)...)
				out = append(out, second.Advance(t0.Add(1000*time.Hour))...)
				if got := texts(out); !equalTexts(got, want) {
					t.Fatalf("cut %d: %d rows, uninterrupted %d\n%s", cut, len(got), len(want), firstDiff(got, want))
				}
				if s := second.Stats(); s.Replayed == 0 {
					t.Fatalf("cut %d: no record was replayed", cut)
				}
			}
		})
	}
}

// replayed returns, as one batch, the last records before the resume
// offsets (up to 3 per partition), which a restarted consumer reads again.
func replayed(batches [][]Event, resume map[int32]int64) [][]Event {
	var b []Event
	for _, batch := range batches {
		for _, e := range batch {
			if e.Offset >= resume[e.Partition]-3 {
				b = append(b, e)
			}
		}
	}
	if len(b) == 0 {
		return nil
	}
	return [][]Event{b}
}

// TestRestartProtocol runs the write-ahead protocol of the package
// documentation with crashes at every point and checks that the
// destination ends with exactly the rows of an uninterrupted run.
func TestRestartProtocol(t *testing.T) {
	evs := stream(500, 4)
	sc := scenarios[0]
	batches := splits(evs, 5)
	whole := newScenario(t, sc.ops)
	want := texts(runSteps(whole, batches))

	type record struct {
		snap    []byte
		pending []rows.Row
		seq     int
	}
	var (
		store       *record                // durable
		destination = map[int][]rows.Row{} // idempotent per seq (Delta txn version)
		lastSeq     int
	)
	deliver := func(seq int, rs []rows.Row) {
		if _, done := destination[seq]; !done {
			destination[seq] = rs
		}
		lastSeq = max(lastSeq, seq)
	}
	r := rand.New(rand.NewPCG(9, 9))
	var p *Pipeline
	start := func() {
		p = newScenario(t, sc.ops)
		if store != nil {
			if err := p.Restore(store.snap); err != nil {
				t.Fatal(err)
			}
			deliver(store.seq, store.pending)
		}
	}
	start()
	crashes := 0
	for i := 0; i < len(batches); {
		// Read from Kafka at the pipeline's offsets (what is below them is
		// skipped anyway; we hand the batch as fetched).
		b := batches[i]
		out := p.Process(b)
		out = append(out, p.Advance(b[len(b)-1].Timestamp.Add(3*time.Second))...)
		if r.IntN(5) == 0 { // crash before the record is stored
			crashes++
			start()
			i = resumeIndex(batches, p.Offsets())
			continue
		}
		snap, err := p.Snapshot()
		if err != nil {
			t.Fatal(err)
		}
		seq := 1
		if store != nil {
			seq = store.seq + 1
		}
		store = &record{snap: snap, pending: out, seq: seq}
		if r.IntN(5) == 0 { // crash after storing, before delivering
			crashes++
			start()
			i = resumeIndex(batches, p.Offsets())
			continue
		}
		deliver(seq, out)
		if r.IntN(5) == 0 { // crash after delivering
			crashes++
			start()
			i = resumeIndex(batches, p.Offsets())
			continue
		}
		i++
	}
	var got []rows.Row
	for seq := 1; seq <= lastSeq; seq++ {
		got = append(got, destination[seq]...)
	}
	if crashes < 5 {
		t.Fatalf("only %d crashes simulated", crashes)
	}
	if g := texts(got); !equalTexts(g, want) {
		t.Fatalf("after %d crashes: %d rows, uninterrupted %d\n%s", crashes, len(g), len(want), firstDiff(g, want))
	}
	t.Logf("%d batches, %d crashes, %d rows", len(batches), crashes, len(want))
}

// resumeIndex returns the first batch with a record not yet covered by
// offsets. Batches here hold whole fetches, so resuming at a batch boundary
// (and letting Process skip what it already has) is what a consumer does.
func resumeIndex(batches [][]Event, offsets map[int32]int64) int {
	for i, b := range batches {
		for _, e := range b {
			if next, ok := offsets[e.Partition]; !ok || e.Offset >= next {
				return i
			}
		}
	}
	return len(batches)
}

func TestReplayedOffsetsAreSkipped(t *testing.T) {
	p := mustPipeline(t, `[]`)
	evs := events(`{"i":0}`, `{"i":1}`, `{"i":2}`)
	if got := len(p.Process(evs)); got != 3 {
		t.Fatalf("first pass %d rows", got)
	}
	if got := p.Process(evs[1:]); got != nil {
		t.Fatalf("replay emitted %v", texts(got))
	}
	if off := p.Offsets(); off[0] != 3 {
		t.Fatalf("offsets %v", off)
	}
	// Other partitions and unpositioned records are independent.
	out := p.Process([]Event{{Row: row(`{"p":1}`), Partition: 1, Offset: 0}, {Row: row(`{"x":1}`), Offset: -1}, {Row: row(`{"x":1}`), Offset: -1}, {Offset: -1}})
	if got := texts(out); !equalTexts(got, []string{`{"p":1}`, `{"x":1}`, `{"x":1}`, `{}`}) {
		t.Fatalf("got %v", got)
	}
	if s := p.Stats(); s.Replayed != 2 || s.Events != 7 || s.Rows != 7 {
		t.Fatalf("stats %+v", s)
	}
	if p.Stateful() {
		t.Fatal("no GroupBy, no state")
	}
}

func TestRestoreRefusesOtherSnapshots(t *testing.T) {
	const ops = `[{"type":"GroupBy","aggregates":[{"fn":"count","as":"n"}],"window":{"kind":"tumbling","duration":"1m","on":"ts"}}]`
	p := mustPipeline(t, ops)
	p.Process(events(fmt.Sprintf(`{"ts":%q}`, at(0, 1))))
	snap, err := p.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	// Same operators under other names: fine.
	renamed := mustPipeline(t, strings.Replace(ops, `"type":"GroupBy"`, `"type":"GroupBy","name":"agg"`, 1))
	if err := renamed.Restore(snap); err != nil {
		t.Fatalf("renamed: %v", err)
	}
	other := mustPipeline(t, strings.Replace(ops, `"1m"`, `"2m"`, 1))
	before, _ := other.Snapshot()
	for name, data := range map[string][]byte{
		"other operators": snap,
		"garbage":         []byte(`{"version":`),
		"other version":   []byte(`{"version":99}`),
		"bad stage":       []byte(strings.Replace(string(before), `"stage":0`, `"stage":5`, 1)),
	} {
		err := other.Restore(data)
		if !errors.Is(err, ErrSnapshotMismatch) {
			t.Errorf("%s: %v", name, err)
		}
	}
	if after, _ := other.Snapshot(); string(after) != string(before) {
		t.Fatalf("a failed restore changed the pipeline:\n%s\n%s", before, after)
	}
	// Snapshots are deterministic.
	again, _ := p.Snapshot()
	if string(again) != string(snap) {
		t.Fatal("two snapshots of one state differ")
	}
	// Expected partitions survive a restore.
	q := mustPipeline(t, ops)
	q.ExpectPartitions(0, 1)
	qs, _ := q.Snapshot()
	r := mustPipeline(t, ops)
	if err := r.Restore(qs); err != nil {
		t.Fatal(err)
	}
	r.Process([]Event{{Row: row(fmt.Sprintf(`{"ts":%q}`, at(5, 0))), Partition: 1, Offset: 0}})
	if out := r.Process([]Event{{Row: row(fmt.Sprintf(`{"ts":%q}`, at(0, 1))), Partition: 0, Offset: 0}}); out != nil || r.Stats().Late != 0 {
		t.Fatalf("declared partition lost in restore: %v %+v", texts(out), r.Stats())
	}
}

func TestConcurrentUse(t *testing.T) {
	p := newScenario(t, scenarios[0].ops)
	evs := stream(200, 7)
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := g; i < len(evs); i += 4 {
				p.Process(evs[i : i+1])
				p.Advance(evs[i].Timestamp)
				_ = p.Stats()
				_, _ = p.Deadline()
				_ = p.Offsets()
				if _, err := p.Snapshot(); err != nil {
					t.Error(err)
				}
			}
		}()
	}
	wg.Wait()
	if s := p.Stats(); s.Events+s.Replayed != int64(len(evs)) {
		t.Fatalf("stats %+v", s)
	}
}
