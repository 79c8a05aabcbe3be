package runtime

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/fabrictest/fabrictest/emulator/internal/insights"
	"github.com/fabrictest/fabrictest/emulator/pipeline"
)

// TestGroupsOverLimitAreRuntimeErrors: a destination whose GroupBy holds
// its limit of groups counts the rows of new keys it drops as runtime
// errors and GroupsOverLimit, and logs the limit at Error.
func TestGroupsOverLimitAreRuntimeErrors(t *testing.T) {
	st, dest := journalStore(t)
	ctx := context.Background()
	ops, err := pipeline.Parse([]byte(`[{"type":"GroupBy","keys":["k"],"aggregates":[{"fn":"count","as":"n"}],
		"window":{"kind":"tumbling","duration":"1m","on":"ts"}}]`))
	if err != nil {
		t.Fatal(err)
	}
	rej, _ := testRejecter(t)
	p, err := newProcessor(ctx, st, dest, ops, &poisonWriter{}, rej, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	p.pipe.LimitGroups(2)
	node := &insights.Node{}
	sink := &countedSink{processor: p, node: node, now: time.Now}
	var vals []string
	for _, k := range []string{"a", "b", "c", "d", "a"} {
		vals = append(vals, fmt.Sprintf(`{"ts":"2026-01-01T00:00:01Z","k":%q}`, k))
	}
	if err := sink.Write(ctx, records(vals...)); err != nil {
		t.Fatal(err)
	}
	c := node.Counters()
	if c[insights.GroupsOverLimit] != 2 || c[insights.RuntimeErrors] != 2 {
		t.Fatalf("counters %v, want GroupsOverLimit and RuntimeErrors 2 (c and d)", c)
	}
	logs := node.Logs()
	if len(logs) != 1 || logs[0].Level != insights.LevelError || !strings.Contains(logs[0].Message, "2 rows were dropped") {
		t.Fatalf("logs %+v", logs)
	}
}
