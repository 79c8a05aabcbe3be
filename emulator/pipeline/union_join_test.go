package pipeline

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

// Union and Join follow Fabric's operators (learn.microsoft.com/fabric/
// real-time-intelligence/event-streams/process-events-using-event-processor-editor)
// and Azure Stream Analytics' UNION and JOIN with DATEDIFF
// (learn.microsoft.com/stream-analytics-query/union-azure-stream-analytics,
// .../join-azure-stream-analytics).

// recAt is an event at t0+sec seconds of record time.
func recAt(sec int, off int64, doc string) Event {
	return Event{Row: row(doc), Timestamp: t0.Add(time.Duration(sec) * time.Second), Offset: off}
}

func TestUnion(t *testing.T) {
	p := mustPipeline(t, `{"type":"Union","inputs":[
		[{"type":"Filter","condition":{"field":"v","op":"gt","value":5}}],
		[{"type":"Filter","condition":{"field":"k","op":"eq","value":"a"}},{"type":"ManageFields","keep":["k"]}],
		[]]}`)
	got := texts(p.Process([]Event{recAt(0, 0, `{"k":"a","v":7}`), recAt(1, 1, `{"k":"b","v":1}`)}))
	want := []string{`{"k":"a","v":7}`, `{"k":"a"}`, `{"k":"a","v":7}`, `{"k":"b","v":1}`}
	if !equalTexts(got, want) {
		t.Errorf("got  %v\nwant %v", got, want)
	}
}

func TestUnionOfWindowsSurvivesRestart(t *testing.T) {
	const doc = `[{"type":"Union","inputs":[
		[{"type":"GroupBy","aggregates":[{"fn":"count","as":"n"}],"window":{"kind":"tumbling","duration":"10s"}}],
		[{"type":"Filter","condition":{"field":"v","op":"gt","value":1}}]]},
		{"type":"ManageFields","drop":["_window_start"]}]`
	feed := []Event{recAt(0, 0, `{"v":1}`), recAt(3, 1, `{"v":2}`), recAt(12, 2, `{"v":3}`)}
	straight := feedOneByOne(t, mustPipeline(t, doc), feed)
	want := []string{`{"v":2}`, `{"n":2,"window_end":"2026-01-01T00:00:10Z","window_start":"2026-01-01T00:00:00Z"}`, `{"v":3}`,
		`{"n":1,"window_end":"2026-01-01T00:00:20Z","window_start":"2026-01-01T00:00:10Z"}`}
	if !equalTexts(straight, want) {
		t.Fatalf("got  %v\nwant %v", straight, want)
	}
	for cut := range len(feed) + 1 {
		if got := restartAt(t, doc, feed, cut); !equalTexts(got, want) {
			t.Errorf("restart after %d: got %v", cut, got)
		}
	}
	p := mustPipeline(t, doc)
	p.Process(feed[:1])
	if d, ok := p.Deadline(); !ok || !d.Equal(t0.Add(10*time.Second)) {
		t.Errorf("deadline %v %v: the window inside the Union closes at 10s", d, ok)
	}
	if !p.Stateful() {
		t.Error("a Union with a GroupBy input is stateful")
	}
}

const sides = `"inputs":[[{"type":"Filter","condition":{"field":"side","op":"eq","value":"L"}}],
	[{"type":"Filter","condition":{"field":"side","op":"eq","value":"R"}}]]`

func TestJoin(t *testing.T) {
	feed := []Event{recAt(0, 0, `{"side":"L","k":"a","v":1}`), recAt(2, 1, `{"side":"R","k":"a","w":10}`),
		recAt(3, 2, `{"side":"R","k":"b","w":20}`), recAt(8, 3, `{"side":"L","k":"a","v":2}`),
		recAt(9, 4, `{"side":"R","k":"a","w":30}`), recAt(10, 5, `{"side":"L","k":"c","v":3}`)}
	pairs := []string{
		`{"k":"a","k_right":"a","side":"L","side_right":"R","v":1,"w":10}`,
		`{"k":"a","k_right":"a","side":"L","side_right":"R","v":2,"w":30}`,
	}
	inner := `{"type":"Join","joinType":"Inner","joinOn":[{"left":"k","right":"k"}],"duration":"5s",` + sides + `}`
	if got := feedOneByOne(t, mustPipeline(t, inner), feed); !equalTexts(got, pairs) {
		t.Errorf("inner: got  %v\nwant %v", got, pairs)
	}
	outer := `{"type":"Join","joinType":"LeftOuter","joinOn":[{"left":"k","right":"k"}],"duration":"5s",` + sides + `}`
	want := append(slices.Clone(pairs), `{"k":"c","side":"L","v":3}`)
	for cut := range len(feed) + 1 {
		if got := restartAt(t, outer, feed, cut); !equalTexts(got, want) {
			t.Errorf("left outer, restart after %d: got %v\nwant %v", cut, got, want)
		}
	}
	p := mustPipeline(t, outer)
	p.Process(feed)
	if d, ok := p.Deadline(); !ok || !d.Equal(t0.Add(15*time.Second+1)) {
		t.Errorf("deadline %v %v: the unmatched left row at 10s is passed on after 15s", d, ok)
	}
	p.Process([]Event{recAt(1, 6, `{"side":"R","k":"a"}`)})
	if s := p.Stats(); s.Late != 1 {
		t.Errorf("late %d, want 1", s.Late)
	}
}

// TestJoinAgainstReference compares random streams with every pair the
// definition allows, straight and with a restart at a random point.
func TestJoinAgainstReference(t *testing.T) {
	type ev struct {
		sec     int
		left    bool
		k       string
		v       int
		matched bool
	}
	for _, kind := range []string{"Inner", "LeftOuter"} {
		doc := `{"type":"Join","joinType":"` + kind + `","joinOn":[{"left":"k","right":"k"}],"duration":"4s",` + sides + `}`
		for seed := range 60 {
			r := rand.New(rand.NewPCG(uint64(seed), 5))
			evs := make([]ev, 1+r.IntN(30))
			sec := 0
			var feed []Event
			for i := range evs {
				sec += r.IntN(4)
				evs[i] = ev{sec: sec, left: r.IntN(2) == 0, k: string(rune('a' + r.IntN(2))), v: i}
				side := map[bool]string{true: "L", false: "R"}[evs[i].left]
				feed = append(feed, recAt(sec, int64(i), fmt.Sprintf(`{"side":%q,"k":%q,"v":%d}`, side, evs[i].k, i)))
			}
			var want []string
			for i := range evs {
				for j := range evs {
					l, r := &evs[i], evs[j]
					if l.left && !r.left && l.k == r.k && l.sec-r.sec <= 4 && r.sec-l.sec <= 4 {
						l.matched = true
						want = append(want, fmt.Sprintf(`{"k":%q,"k_right":%q,"side":"L","side_right":"R","v":%d,"v_right":%d}`, l.k, r.k, l.v, r.v))
					}
				}
			}
			for _, l := range evs {
				if kind == "LeftOuter" && l.left && !l.matched {
					want = append(want, fmt.Sprintf(`{"k":%q,"side":"L","v":%d}`, l.k, l.v))
				}
			}
			slices.Sort(want)
			straight := feedOneByOne(t, mustPipeline(t, doc), feed)
			restarted := restartAt(t, doc, feed, r.IntN(len(feed)+1))
			if !equalTexts(straight, restarted) {
				t.Fatalf("%s seed %d: restart changed the rows:\n%v\n%v", kind, seed, straight, restarted)
			}
			slices.Sort(straight)
			if !equalTexts(straight, want) {
				t.Fatalf("%s seed %d:\n got  %v\nwant %v", kind, seed, straight, want)
			}
		}
	}
}

func TestUnionJoinBadSpecs(t *testing.T) {
	for doc, field := range map[string]string{
		`{"type":"Union","inputs":[[]]}`:                                                              "inputs",
		`{"type":"Union"}`:                                                                            "inputs",
		`{"type":"Union","inputs":[[],[{"type":"Filter"}]]}`:                                          "inputs[1][0].condition",
		`{"type":"Join","joinType":"Cross","duration":"1s","inputs":[[],[]]}`:                         "joinType",
		`{"type":"Join","joinType":"Inner","inputs":[[],[]]}`:                                         "duration",
		`{"type":"Join","joinType":"Inner","duration":"1s","inputs":[[]]}`:                            "inputs",
		`{"type":"Join","joinType":"Inner","duration":"1s","joinOn":[{"left":"a"}],"inputs":[[],[]]}`: "joinOn[0].right",
	} {
		_, err := Parse([]byte(doc))
		var v *ValidationError
		if !errors.As(err, &v) || v.Field != field {
			t.Errorf("%s: got %v, want an error at %s", doc, err, field)
		}
	}
}
