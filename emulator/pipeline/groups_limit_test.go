package pipeline

import (
	"fmt"
	"testing"
)

// TestGroupByStateIsBoundedByGroups: with a bound of 3 groups, a window of
// 5 keys emits the 3 first keys; the others' rows are counted in
// GroupsOverLimit (the bound counts every open window's groups). The bound and the count survive a snapshot and
// restore: a later window of 5 new keys holds at most 3 again.
func TestGroupByStateIsBoundedByGroups(t *testing.T) {
	p := mustPipeline(t, `[{"type":"GroupBy","keys":["k"],"aggregates":[{"fn":"count","as":"n"}],
		"window":{"kind":"tumbling","duration":"1m","on":"ts"}}]`)
	p.LimitGroups(3)
	var docs []string
	for _, k := range []string{"a", "b", "c", "d", "a", "e"} {
		docs = append(docs, fmt.Sprintf(`{"ts":%q,"k":%q}`, at(0, 1), k))
	}
	docs = append(docs, fmt.Sprintf(`{"ts":%q,"k":"later"}`, at(2, 1)))
	out := p.Process(events(docs...))
	if got := col(out, "k"); got != "a b c" {
		t.Fatalf("minute 0 emitted keys %q, want a b c", got)
	}
	if got := col(out, "n"); got != "2 1 1" {
		t.Fatalf("counts %q", got)
	}
	if s := p.Stats(); s.GroupsOverLimit != 3 {
		t.Fatalf("GroupsOverLimit = %d, want 3 (d, e, and later: minute 0 still held 3 groups when it came)", s.GroupsOverLimit)
	}
	snap, err := p.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Restore(snap); err != nil {
		t.Fatal(err)
	}
	var more []string
	for _, k := range []string{"v", "w", "x", "y", "z"} {
		more = append(more, fmt.Sprintf(`{"ts":%q,"k":%q}`, at(10, 1), k))
	}
	more = append(more, fmt.Sprintf(`{"ts":%q,"k":"end"}`, at(20, 1)))
	evs := events(more...)
	for i := range evs {
		evs[i].Offset += 100
	}
	minute10 := 0
	for _, r := range p.Process(evs) {
		if r["window_start"] == at(10, 0) {
			minute10++
		}
	}
	if minute10 == 0 || minute10 > 3 {
		t.Fatalf("minute 10 emitted %d groups, want 1 to 3 under a bound of 3", minute10)
	}
	if s := p.Stats(); s.GroupsOverLimit < 5 {
		t.Fatalf("GroupsOverLimit = %d after restore, want at least 5", s.GroupsOverLimit)
	}
}

// TestAggregateStateIsBoundedByGroups: with a bound of 2 partitions, a row
// of a third partition gets a null aggregate and is not remembered; the
// two partitions held go on.
func TestAggregateStateIsBoundedByGroups(t *testing.T) {
	p := mustPipeline(t, `[{"type":"Aggregate","on":"ts","aggregates":[
		{"fn":"Sum","field":"v","duration":"1m","partitionBy":["k"]}]}]`)
	p.LimitGroups(2)
	var docs []string
	for i, k := range []string{"a", "b", "c", "a", "c"} {
		docs = append(docs, fmt.Sprintf(`{"ts":%q,"k":%q,"v":%d}`, atS(float64(i)), k, i+1))
	}
	out := p.Process(events(docs...))
	if got := col(out, "SUM_v"); got != "1 2 <nil> 5 <nil>" {
		t.Fatalf("sums %q, want 1 2 null 5 null", got)
	}
	if s := p.Stats(); s.GroupsOverLimit != 2 {
		t.Fatalf("GroupsOverLimit = %d, want 2", s.GroupsOverLimit)
	}
}
