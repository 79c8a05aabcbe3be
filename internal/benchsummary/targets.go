package main

import "fmt"

// A target is one line of the summary: a figure computed from the run,
// the baseline issue 19 measured before the work, and the goal.
type target struct {
	figure   string
	baseline string // as issue 19 states it; "—" when it gave none
	// baselineValues, when set, measures the baseline in the same run
	// (the code path the work replaced), once per repetition.
	baselineValues func(s samples) []float64
	goal           string
	// values returns the figure once per repetition.
	values func(s samples) []float64
	met    func(v float64) bool
	format func(v float64) string
}

func pct(v float64) string   { return fmt.Sprintf("%.1f%%", v) }
func rate(v float64) string  { return fmt.Sprintf("%.0f/s", v) }
func mb(v float64) string    { return fmt.Sprintf("%.0f MB", v) }
func times(v float64) string { return fmt.Sprintf("%.2f×", v) }
func ms(v float64) string    { return fmt.Sprintf("%.2f ms", v) }

// allTargets are the rows of the summary, in order.
func allTargets() []target { return append(append([]target(nil), issue19...), single...) }

// issue19 are the targets of issue 19 (and the team's idle RSS target),
// over the benchmarks `make bench` runs.
var issue19 = []target{
	{
		figure: "HTTP produce / raw franz-go", baseline: "23.0%", goal: ">= 75%",
		values: func(s samples) []float64 { return s.values("Ratios/produce", "http/raw-%") },
		met:    func(v float64) bool { return v >= 75 }, format: pct,
	},
	{
		figure: "HTTP consume / raw franz-go", baseline: "6.5%", goal: ">= 75%",
		values: func(s samples) []float64 { return s.values("Ratios/consume", "http/raw-%") },
		met:    func(v float64) bool { return v >= 75 }, format: pct,
	},
	{
		figure: "drain 1,000,000 events into Delta", baseline: "388660/s", goal: ">= 750000/s",
		values: func(s samples) []float64 { return s.values("DrainToDelta", "rows/s") },
		met:    func(v float64) bool { return v >= 750_000 }, format: rate,
	},
	{
		figure: "drain peak RSS (with the broker)", baseline: "236 MB", goal: "< 256 MB",
		values: func(s samples) []float64 { return s.values("DrainToDelta", "peak-RSS-MB") },
		met:    func(v float64) bool { return v < 256 }, format: mb,
	},
	{
		figure: "append at v10,000 / at v100 (CPU)", baseline: "— (no checkpoints)", goal: "<= 1.5×",
		values: func(s samples) []float64 { return s.values("CheckpointedLog", "append-10000/100") },
		met:    func(v float64) bool { return v <= 1.5 }, format: times,
	},
	{
		figure: "open at v10,000 / at v100 (CPU)", goal: "<= 1.5×",
		baselineValues: func(s samples) []float64 { return s.values("CheckpointedLog", "open-replay-10000/100") },
		values:         func(s samples) []float64 { return s.values("CheckpointedLog", "open-10000/100") },
		met:            func(v float64) bool { return v <= 1.5 }, format: times,
	},
	{
		figure: "gateway produce / direct", baseline: "—", goal: ">= 85%",
		values: func(s samples) []float64 { return s.values("GatewayRatio/produce", "gateway/direct-%") },
		met:    func(v float64) bool { return v >= 85 }, format: pct,
	},
	{
		figure: "gateway consume / direct", baseline: "42% (75% in another run)", goal: ">= 80%",
		values: func(s samples) []float64 { return s.values("GatewayRatio/consume", "gateway/direct-%") },
		met:    func(v float64) bool { return v >= 80 }, format: pct,
	},
	{
		figure: "idle CPU, 500 Eventstreams (one core)", baseline: "—", goal: "< 5%",
		values: func(s samples) []float64 { return s.values("IdleEventstreams/n=500/partitions=4", "idle-CPU-%") },
		met:    func(v float64) bool { return v < 5 }, format: pct,
	},
	{
		figure: "idle RSS of the binary", baseline: "—", goal: "< 64 MB",
		values: func(s samples) []float64 { return s.values("IdleRSS", "idle-RSS-MB") },
		met:    func(v float64) bool { return v < 64 }, format: mb,
	},
	{
		figure: "Event Hubs (AMQP) send / Kafka endpoint produce", baseline: "—", goal: ">= 60%",
		values: func(s samples) []float64 { return s.values("EventHubsRatio/send", "amqp/kafka-%") },
		met:    func(v float64) bool { return v >= 60 }, format: pct,
	},
	{
		figure: "Event Hubs (AMQP) receive / Kafka endpoint fetch", baseline: "—", goal: ">= 60%",
		values: func(s samples) []float64 { return s.values("EventHubsRatio/receive", "amqp/kafka-%") },
		met:    func(v float64) bool { return v >= 60 }, format: pct,
	},
	{
		figure: "slowest portal page, 500 Eventstreams, 100,000-row table", baseline: "—", goal: "<= 100 ms",
		values: func(s samples) []float64 { return s.values("PortalPages", "slowest-page-ms") },
		met:    func(v float64) bool { return v <= 100 }, format: func(v float64) string { return fmt.Sprintf("%.1f ms", v) },
	},
}

// single are the single-event targets (one event per call): the HTTP
// produce beside raw franz-go ProduceSync with as many goroutines, and with
// a Lakehouse destination bound. Baselines: the pooled producers that
// rested 50 ms between calls, measured by the same benchmarks.
var single = []target{
	{
		figure: "single events, 1 caller: HTTP / raw", baseline: "4.4%", goal: ">= 50%",
		values: func(s samples) []float64 { return s.values("Single/callers=1", "http/raw-%") },
		met:    func(v float64) bool { return v >= 50 }, format: pct,
	},
	{
		figure: "single events, 32 callers: HTTP / raw", baseline: "1.5%", goal: ">= 50%",
		values: func(s samples) []float64 { return s.values("Single/callers=32", "http/raw-%") },
		met:    func(v float64) bool { return v >= 50 }, format: pct,
	},
	{
		figure: "single events, 32 callers: HTTP p99", baseline: "75.43 ms", goal: "< 5 ms",
		values: func(s samples) []float64 { return s.values("Single/callers=32", "http-p99-ms") },
		met:    func(v float64) bool { return v < 5 }, format: ms,
	},
	{
		figure: "single events, Lakehouse bound, 1 caller: p50", baseline: "2.79 ms", goal: "<= 2 ms",
		values: func(s samples) []float64 { return s.values("Single/bound/callers=1", "http-p50-ms") },
		met:    func(v float64) bool { return v <= 2 }, format: ms,
	},
	{
		figure: "single events, Lakehouse bound, 32 callers", baseline: "880/s", goal: ">= 10000/s",
		values: func(s samples) []float64 { return s.values("Single/bound/callers=32", "http-calls/s") },
		met:    func(v float64) bool { return v >= 10_000 }, format: rate,
	},
	{
		figure: "produce → Delta commit at 1,000 events/s: p50", baseline: "—", goal: "<= 50 ms",
		values: func(s samples) []float64 { return s.values("Single/bound/paced=1000", "http-p50-ms") },
		met:    func(v float64) bool { return v <= 50 }, format: ms,
	},
	{
		figure: "produce → Delta commit at 1,000 events/s: p99", baseline: "—", goal: "<= 250 ms",
		values: func(s samples) []float64 { return s.values("Single/bound/paced=1000", "http-p99-ms") },
		met:    func(v float64) bool { return v <= 250 }, format: ms,
	},
	{
		figure: "single records, 32 producers: gateway / direct", baseline: "—", goal: ">= 80%",
		values: func(s samples) []float64 { return s.values("GatewayRatio/single", "gateway/direct-%") },
		met:    func(v float64) bool { return v >= 80 }, format: pct,
	},
}
