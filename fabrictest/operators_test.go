package fabrictest_test

import (
	"fmt"
	"testing"
	"time"

	. "github.com/onsi/gomega"

	"github.com/fabrictest/fabrictest/emulator/pipeline"
	"github.com/fabrictest/fabrictest/fabrictest"
)

func TestOperatorsIntoLakehouse(t *testing.T) {
	t.Parallel()
	g := NewWithT(t)
	// One partition: an event-time window closes when the slowest
	// partition's time passes its end.
	env := fabrictest.Start(t, fabrictest.WithPartitions(1))
	ws := env.Workspace("iot")
	es := ws.Eventstream("readings")
	g.Expect(es.Operators()).To(BeEmpty())

	chain := es.SetOperators(
		pipeline.Filter{Condition: pipeline.Condition{Field: "temp", Op: pipeline.OpGt, Value: 20}},
		pipeline.GroupBy{Keys: []string{"site"},
			Aggregates: []pipeline.Aggregate{{Fn: pipeline.Count, As: "n"}, {Fn: pipeline.Max, Field: "temp"}},
			Window:     pipeline.Window{Kind: pipeline.Tumbling, Duration: time.Minute, On: "ts"}},
	)
	g.Expect(chain).To(HaveLen(2))
	g.Expect(chain[1].Window.On).To(Equal("ts"))
	g.Expect(es.Operators()).To(Equal(chain))

	lh := ws.Lakehouse("iot")
	es.BindLakehouse(lh, "per_minute")
	at := func(sec int) string { return fmt.Sprintf("2026-11-29T10:%02d:%02dZ", sec/60, sec%60) }
	es.ProduceJSON(
		map[string]any{"site": "a", "temp": 25, "ts": at(1)},
		map[string]any{"site": "a", "temp": 15, "ts": at(2)}, // filtered out
		map[string]any{"site": "b", "temp": 30, "ts": at(3)},
		map[string]any{"site": "a", "temp": 27, "ts": at(59)},
		map[string]any{"site": "a", "temp": 21, "ts": at(61)}, // closes the first minute
	)
	table := lh.Table("per_minute")
	g.Expect(table).To(fabrictest.HaveRowsMatching(
		map[string]any{"site": "a", "n": 2, "max_temp": 27, "window_start": at(0), "window_end": at(60)},
		map[string]any{"site": "b", "n": 1, "max_temp": 30, "window_start": at(0)},
	))
	g.Expect(table).To(fabrictest.HaveColumns("site", "n", "max_temp", "window_start", "window_end", "_window_start"))

	// JSON works too; a refused chain changes nothing.
	_, err := es.TrySetOperators(`[{"type": "SQL", "query": "SELECT * INTO o FROM i"}]`)
	g.Expect(err).To(fabrictest.HaveErrorCode("EventstreamOperatorNotSupported"))
	_, err = es.TrySetOperators(map[string]any{"type": "Join"})
	g.Expect(err).To(fabrictest.HaveErrorCode("InvalidInput"))
	_, err = es.TrySetOperators([]any{map[string]any{"type": "Filter"}})
	g.Expect(err).To(MatchError(ContainSubstring("pass operators one per argument")))
	g.Expect(es.Operators()).To(Equal(chain))

	g.Expect(es.SetOperators(`{"type": "ManageFields", "drop": ["debug"]}`)).To(HaveLen(1))
	es.ClearOperators()
	g.Expect(es.Operators()).To(BeEmpty())
}
