package insights

import (
	"testing"
	"time"
)

// Runtime logs list newest first and filter by level and keyword, as
// Fabric's runtime logs do (fabric-docs, "Monitor the status and
// performance of an eventstream").
func TestLogsNewestFirstAndFilter(t *testing.T) {
	var n Node
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	n.Log(t0, LevelWarning, `field "a" is bigint in the table`, "offset", 1)
	n.Log(t0.Add(time.Second), LevelError, "write failed", "seq", 2)
	n.Log(t0.Add(2*time.Second), LevelWarning, "dropped", "field", "extra")
	logs := n.Logs()
	if len(logs) != 3 || logs[0].Message != "dropped" || logs[2].Level != LevelWarning {
		t.Fatalf("logs %+v", logs)
	}
	if got := Filter(logs, []Level{LevelWarning}, ""); len(got) != 2 || got[0].Message != "dropped" {
		t.Errorf("warnings %+v", got)
	}
	if got := Filter(logs, nil, "EXTRA"); len(got) != 1 || got[0].Message != "dropped" {
		t.Errorf("keyword in an attribute: %+v", got)
	}
	if got := Filter(logs, []Level{LevelError, LevelWarning}, "write"); len(got) != 1 || got[0].Level != LevelError {
		t.Errorf("keyword in a message: %+v", got)
	}
	if _, err := ParseLevel("verbose"); err == nil {
		t.Error("verbose parsed as a level")
	}
	if l, err := ParseLevel("warning"); err != nil || l != LevelWarning {
		t.Errorf("warning: %v %v", l, err)
	}
}

// Changed hands each changed node once; Restore adds saved counts to the
// ones made since and keeps the logs bounded.
func TestChangedAndRestore(t *testing.T) {
	r := NewRegistry()
	r.Node("a").Add(InputEvents, 2)
	r.Node("b") // never changed
	ch := r.Changed()
	if len(ch) != 1 || ch["a"].Counters[InputEvents] != 2 {
		t.Fatalf("changed %+v", ch)
	}
	if again := r.Changed(); len(again) != 0 {
		t.Fatalf("changed twice: %+v", again)
	}
	r.MarkChanged("a")
	if again := r.Changed(); len(again) != 1 {
		t.Fatalf("marked node not changed: %+v", again)
	}

	fresh := NewRegistry()
	fresh.Node("a").Add(InputEvents, 1)
	fresh.Node("a").Set(WatermarkDelaySeconds, 7)
	saved := State{Counters: map[Metric]int64{InputEvents: 2, WatermarkDelaySeconds: 99}}
	for i := range maxLogs {
		saved.Logs = append(saved.Logs, Entry{Message: "old", Time: time.Unix(int64(i), 0)})
	}
	fresh.Node("a").Log(time.Unix(1000, 0), LevelError, "new")
	fresh.Restore("a", saved)
	c := fresh.Node("a").Counters()
	if c[InputEvents] != 3 || c[WatermarkDelaySeconds] != 7 {
		t.Errorf("restored counters %v", c)
	}
	logs := fresh.Node("a").Logs()
	if len(logs) != maxLogs || logs[0].Message != "new" {
		t.Errorf("restored logs: %d, newest %q", len(logs), logs[0].Message)
	}
}
