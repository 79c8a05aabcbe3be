package main

import (
	"fmt"
	"io"
	"slices"
	"text/tabwriter"
)

// A ceiling is what no code of the emulator can pass on the machine: the
// same client against a stand-in that does no work, beside the figure a
// target sets. A target above its ceiling cannot be met here, whatever the
// emulator does; the summary prints the ceilings under the targets.
type ceiling struct {
	figure string
	bounds string // the target it bounds
	values func(s samples) []float64
	format func(v float64) string
}

// allCeilings are the ceilings `make bench` measures.
func allCeilings() []ceiling {
	return []ceiling{
		{
			// A produce makes two hops one after the other (client to the
			// route, the route to the broker): at best a call takes a no-op
			// HTTP call plus a raw ProduceSync, 1/(1/noop + 1/raw) calls/s.
			figure: "single events, 1 caller: a no-op HTTP call then a raw produce / raw",
			bounds: "single events, 1 caller: HTTP / raw >= 50%",
			values: func(s samples) []float64 {
				return pairwise(s.values("Single/ceiling/callers=1", "noop-calls/s"),
					s.values("Single/ceiling/callers=1", "raw-calls/s"),
					func(noop, raw float64) float64 { return 100 * noop / (noop + raw) })
			},
			format: pct,
		},
		{
			figure: "single events, 32 callers: a no-op HTTP handler / raw",
			bounds: "single events, 32 callers: HTTP / raw >= 50%",
			values: func(s samples) []float64 { return s.values("Single/ceiling/callers=32", "noop/raw-%") },
			format: pct,
		},
		{
			// azeventhubs, unchanged, against the door with an in-memory host:
			// the SDK's batch building and encoding and the door, no broker.
			figure: "Event Hubs send: azeventhubs to an in-memory host / Kafka endpoint produce",
			bounds: "Event Hubs (AMQP) send / Kafka endpoint produce >= 60%",
			values: shareOf("SDKSendBatch1000", "events/s", "EventHubsRatio/send", "kafka-events/s"),
			format: pct,
		},
		{
			// go-amqp's receiver against the door with an in-memory host:
			// no broker, a lighter client than azeventhubs.
			figure: "Event Hubs receive: go-amqp from an in-memory host / Kafka endpoint fetch",
			bounds: "Event Hubs (AMQP) receive / Kafka endpoint fetch >= 60%",
			values: shareOf("Receive", "events/s", "EventHubsRatio/receive", "kafka-events/s"),
			format: pct,
		},
	}
}

// shareOf is, repetition by repetition, bench a's figure in unit ua as a
// percentage of bench b's in unit ub.
func shareOf(a, ua, b, ub string) func(s samples) []float64 {
	return func(s samples) []float64 {
		return pairwise(s.values(a, ua), s.values(b, ub), func(x, y float64) float64 { return 100 * x / y })
	}
}

// pairwise applies f to the i-th values of a and b, as far as both go.
func pairwise(a, b []float64, f func(x, y float64) float64) []float64 {
	out := make([]float64, 0, min(len(a), len(b)))
	for i := range min(len(a), len(b)) {
		out = append(out, f(a[i], b[i]))
	}
	return out
}

// summarizeCeilings prints the ceilings' min, median and max and the
// target each bounds.
func summarizeCeilings(w io.Writer, s samples, cs []ceiling) {
	fmt.Fprintln(w, "ceilings (the same client against a stand-in that does no work):")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ceiling\tmin\tmedian\tmax\truns\tbounds")
	for _, c := range cs {
		vs := c.values(s)
		m, ok := median(vs)
		if !ok {
			fmt.Fprintf(tw, "%s\t—\tno data\t—\t0\t%s\n", c.figure, c.bounds)
			continue
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d\t%s\n", c.figure, c.format(slices.Min(vs)), c.format(m),
			c.format(slices.Max(vs)), len(vs), c.bounds)
	}
	_ = tw.Flush()
}
