package pipeline

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

// refEvent is a random event for the reference implementations below.
type refEvent struct {
	sec  int
	k, p string
	v    int
}

func randomRefEvents(r *rand.Rand, n int) []refEvent {
	out := make([]refEvent, n)
	sec := 0
	for i := range out {
		sec += r.IntN(8) // ties allowed
		out[i] = refEvent{sec: sec, k: string(rune('a' + r.IntN(3))), p: string(rune('x' + r.IntN(2))), v: r.IntN(10)}
	}
	return out
}

func (e refEvent) event(off int64) Event {
	return tev(e.sec, off, fmt.Sprintf(`"k":%q,"p":%q,"v":%d`, e.k, e.p, e.v))
}

// refRow renders a reference window row as the pipeline writes it.
func refRow(start, end int, k string, evs []refEvent) string {
	s := 0
	for _, e := range evs {
		s += e.v
	}
	return wantRow(start, end, fmt.Sprintf(`"k":%q,"n":%d,"s":%d`, k, len(evs), s))
}

// refSliding: per key, a row at every entry and exit instant over the
// key's events in (T − d, T], when there are any.
func refSliding(evs []refEvent, d int) []string {
	var out []string
	for _, k := range []string{"a", "b", "c"} {
		var at []int
		for _, e := range evs {
			if e.k == k {
				at = append(at, e.sec, e.sec+d)
			}
		}
		slices.Sort(at)
		for _, T := range slices.Compact(at) {
			var in []refEvent
			for _, e := range evs {
				if e.k == k && e.sec > T-d && e.sec <= T {
					in = append(in, e)
				}
			}
			if len(in) > 0 {
				out = append(out, refRow(T-d, T, k, in))
			}
		}
	}
	return out
}

// refSession: per partition p, sessions cut by timeout and at multiples of
// maxDur; a row per key of each.
func refSession(evs []refEvent, timeout, maxDur int) []string {
	var out []string
	for _, p := range []string{"x", "y"} {
		var cur []refEvent
		start, end := 0, 0
		flush := func() {
			for _, k := range []string{"a", "b", "c"} {
				var in []refEvent
				for _, e := range cur {
					if e.k == k {
						in = append(in, e)
					}
				}
				if len(in) > 0 {
					out = append(out, refRow(start, end, k, in))
				}
			}
			cur = nil
		}
		for _, e := range evs {
			if e.p != p {
				continue
			}
			cut := (start/maxDur + 2) * maxDur // start ≥ 0: the multiple ≥ start + maxDur
			if start%maxDur == 0 {
				cut = start + maxDur
			}
			if len(cur) > 0 && (e.sec >= cur[len(cur)-1].sec+timeout || e.sec >= cut) {
				flush()
			}
			if len(cur) == 0 {
				start = e.sec
				cut = (start/maxDur + 2) * maxDur
				if start%maxDur == 0 {
					cut = start + maxDur
				}
			}
			cur = append(cur, e)
			end = min(e.sec+timeout, cut)
		}
		if len(cur) > 0 {
			flush()
		}
	}
	return out
}

// refSnapshot: a row per key and instant.
func refSnapshot(evs []refEvent) []string {
	var out []string
	for _, e := range evs {
		for _, k := range []string{"a", "b", "c"} {
			var in []refEvent
			for _, f := range evs {
				if f.k == k && f.sec == e.sec {
					in = append(in, f)
				}
			}
			if len(in) > 0 {
				out = append(out, refRow(e.sec, e.sec, k, in))
			}
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// TestASAWindowsAgainstReference runs random streams through each window
// kind, once straight and once with a restart (Snapshot, Restore into a new
// pipeline) at a random point, and compares both with the reference.
func TestASAWindowsAgainstReference(t *testing.T) {
	const aggs = `"keys":["k"],"aggregates":[{"fn":"count","as":"n"},{"fn":"sum","field":"v","as":"s"}]`
	kinds := []struct {
		name, window string
		ref          func([]refEvent) []string
	}{
		{"sliding", `{"kind":"sliding","duration":"10s","on":"ts"}`, func(e []refEvent) []string { return refSliding(e, 10) }},
		{"session", `{"kind":"session","timeout":"6s","maxDuration":"20s","partitionBy":"p","on":"ts"}`, func(e []refEvent) []string { return refSession(e, 6, 20) }},
		{"snapshot", `{"kind":"snapshot","on":"ts"}`, refSnapshot},
	}
	for _, kind := range kinds {
		doc := `{"type":"GroupBy",` + aggs + `,"window":` + kind.window + `}`
		for seed := range 60 {
			r := rand.New(rand.NewPCG(uint64(seed), 21))
			evs := randomRefEvents(r, 1+r.IntN(40))
			feed := make([]Event, len(evs))
			for i, e := range evs {
				feed[i] = e.event(int64(i))
			}
			want := kind.ref(evs)
			slices.Sort(want)
			straight := feedOneByOne(t, mustPipeline(t, doc), feed)
			restarted := restartAt(t, doc, feed, r.IntN(len(feed)+1))
			for name, got := range map[string][]string{"straight": straight, "restarted": restarted} {
				sorted := slices.Clone(got)
				slices.Sort(sorted)
				if !equalTexts(sorted, want) {
					t.Fatalf("%s seed %d %s:\n got  %v\nwant %v", kind.name, seed, name, sorted, want)
				}
			}
			if !equalTexts(straight, restarted) {
				t.Fatalf("%s seed %d: a restart changed the order:\n%v\n%v", kind.name, seed, straight, restarted)
			}
		}
	}
}

// restartAt feeds feed[:at] to one pipeline, restores its snapshot into a
// new one, feeds it everything again (the replay is skipped by offset) and
// flushes.
func restartAt(t *testing.T, doc string, feed []Event, at int) []string {
	t.Helper()
	p := mustPipeline(t, doc)
	var got []string
	for _, ev := range feed[:at] {
		got = append(got, texts(p.Process([]Event{ev}))...)
	}
	snap, err := p.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	q := mustPipeline(t, doc)
	if err := q.Restore(snap); err != nil {
		t.Fatal(err)
	}
	for _, ev := range feed {
		got = append(got, texts(q.Process([]Event{ev}))...)
	}
	if s := q.Stats(); s.Replayed != int64(at) {
		t.Fatalf("replayed %d, want %d", s.Replayed, at)
	}
	return append(got, texts(q.Advance(t0.Add(time.Hour)))...)
}
