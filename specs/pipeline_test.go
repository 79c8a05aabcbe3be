//go:build container

package specs_test

import (
	"fmt"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/fabrictest/fabrictest/emulator/pipeline"
	"github.com/fabrictest/fabrictest/fabrictest"
)

var _ = Describe("Eventstream operators on Apache Kafka", Label("kafka", "container", "operators", "lakehouse"), func() {
	It("filters, groups by site over one-minute event-time windows, and lands one row per window and site in the Lakehouse", func(ctx SpecContext) {
		// One partition: an event-time window closes when the slowest
		// partition's event time passes its end, and keyless events spread
		// over every partition of a 4-partition topic.
		env := fabrictest.Start(GinkgoTB(), fabrictest.WithPartitions(1)).WithContext(ctx)
		ws := env.Workspace("plant")
		es := ws.Eventstream("readings")
		lh := ws.Lakehouse("plant")

		By("setting Filter(temp > 20) → GroupBy(site; count, avg, max over a tumbling 1m window on ts)")
		chain := es.SetOperators(
			pipeline.Filter{Condition: pipeline.Condition{Field: "temp", Op: pipeline.OpGt, Value: 20}},
			pipeline.GroupBy{
				Keys:       []string{"site"},
				Aggregates: []pipeline.Aggregate{{Fn: pipeline.Count, As: "n"}, {Fn: pipeline.Avg, Field: "temp"}, {Fn: pipeline.Max, Field: "temp"}},
				Window:     pipeline.Window{Kind: pipeline.Tumbling, Duration: time.Minute, On: "ts"},
			},
		)
		Expect(chain).To(HaveLen(2))
		Expect(chain[1].Window).NotTo(BeNil())
		Expect(*chain[1].Window).To(Equal(pipeline.WindowSpec{Kind: "tumbling", Duration: "1m0s", On: "ts"}), "the chain as the emulator stored it")
		es.BindLakehouse(lh, "per_minute")

		By("producing readings over three minutes of event time, some too cold")
		at := func(sec int) string { return fmt.Sprintf("2026-11-29T10:%02d:%02dZ", sec/60, sec%60) }
		reading := func(site string, temp float64, sec int) map[string]any {
			return map[string]any{"site": site, "temp": temp, "ts": at(sec), "sensor": "s-" + site}
		}
		es.ProduceJSON(
			reading("a", 25, 1), reading("a", 15, 2), reading("b", 30, 3), reading("a", 27, 59), // minute 10:00
			reading("b", 18, 61), reading("b", 22, 70), reading("a", 21, 119), // minute 10:01
			reading("a", 40, 121), // minute 10:02: its time closes 10:01; 10:02 stays open
		)

		By("finding one row per closed window and site, read-your-writes")
		table := lh.Table("per_minute")
		Expect(table).To(fabrictest.HaveDeltaRows(4))
		Expect(table).To(fabrictest.HaveRowsMatching(
			map[string]any{"window_start": at(0), "window_end": at(60), "site": "a", "n": 2, "avg_temp": 26, "max_temp": 27},
			map[string]any{"window_start": at(0), "window_end": at(60), "site": "b", "n": 1, "avg_temp": 30, "max_temp": 30},
			map[string]any{"window_start": at(60), "window_end": at(120), "site": "b", "n": 1, "avg_temp": 22, "max_temp": 22},
			map[string]any{"window_start": at(60), "window_end": at(120), "site": "a", "n": 1, "avg_temp": 21, "max_temp": 21},
		))
		Expect(table).To(fabrictest.HaveColumns("window_start", "window_end", "_window_start", "site", "n", "avg_temp", "max_temp"),
			"the raw fields (temp, ts, sensor) do not reach the table")

		By("and delta-rs reads the same windows")
		rs := deltaRS(ctx, table.Dir)
		Expect(fabrictest.Rows(rs.Rows)).To(fabrictest.HaveRowsMatching(
			map[string]any{"window_start": HavePrefix("2026-11-29 10:00:00"), "site": "a", "n": 2, "avg_temp": 26},
			map[string]any{"window_start": HavePrefix("2026-11-29 10:00:00"), "site": "b", "n": 1, "avg_temp": 30},
			map[string]any{"window_start": HavePrefix("2026-11-29 10:01:00"), "site": "b", "n": 1, "avg_temp": 22},
			map[string]any{"window_start": HavePrefix("2026-11-29 10:01:00"), "site": "a", "n": 1, "avg_temp": 21},
		))

		By("Kafka keeps the raw events: the operators shape what destinations see")
		Expect(es.Records()).To(fabrictest.HaveRecordCount(8))
	}, SpecTimeout(time.Minute))
})
