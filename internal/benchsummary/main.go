// Command benchsummary reads the output of `go test -bench` runs (files
// named on the command line, or standard input) and prints one table: each
// figure a performance issue sets a target for, its min, median and max
// over the repetitions, the baseline the issue measured, the ratio of the
// median to it, the target, and whether the run met it (a figure with
// fewer than 5 runs, or whose spread exceeds 15% of its median, is not
// met). The first line names the machine's core count. `make bench` ends
// with it.
package main

import (
	"fmt"
	"io"
	"math"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
)

func main() {
	s := samples{}
	if len(os.Args) < 2 {
		if err := s.read(os.Stdin, "stdin"); err != nil {
			fail(err)
		}
	}
	for _, name := range os.Args[1:] {
		f, err := os.Open(name)
		if err != nil {
			fail(err)
		}
		err = s.read(f, name)
		_ = f.Close()
		if err != nil {
			fail(err)
		}
	}
	summarize(os.Stdout, s, allTargets(), runtime.NumCPU())
	summarizeCeilings(os.Stdout, s, allCeilings())
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "benchsummary:", err)
	os.Exit(1)
}

// Bench discipline: a figure is met only when it was measured at least
// minRuns times and its spread (max − min) is at most maxSpread of its
// median; otherwise the machine, not the code, may have made it.
const (
	minRuns   = 5
	maxSpread = 0.15
)

// summarize prints the machine's core count, the table (each figure's
// min, median and max over the repetitions) and a last line counting the
// targets met.
func summarize(w io.Writer, s samples, ts []target, cores int) {
	fmt.Fprintf(w, "machine: %d cores\n", cores)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "figure\tmin\tmedian\tmax\truns\tbaseline\tratio\ttarget\tverdict")
	met := 0
	for _, t := range ts {
		if t.baselineValues != nil {
			t.baseline = "no data"
			if b, ok := median(t.baselineValues(s)); ok {
				t.baseline = t.format(b) + " (this run)"
			}
		}
		vs := t.values(s)
		m, ok := median(vs)
		if !ok {
			fmt.Fprintf(tw, "%s\t—\tno data\t—\t0\t%s\t—\t%s\tMISSED (not run)\n", t.figure, t.baseline, t.goal)
			continue
		}
		lo, hi := slices.Min(vs), slices.Max(vs)
		v := verdict(t, m, lo, hi, len(vs))
		if v == "met" {
			met++
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d\t%s\t%s\t%s\t%s\n", t.figure, t.format(lo), t.format(m), t.format(hi),
			len(vs), t.baseline, ratioTo(m, t.baseline), t.goal, v)
	}
	_ = tw.Flush()
	fmt.Fprintf(w, "%d of %d targets met (medians of at least %d runs, spread within %.0f%% of the median)\n",
		met, len(ts), minRuns, maxSpread*100)
}

// verdict is "met", "MISSED", or why the figure cannot count: too few
// runs, or a spread too wide (unstable).
func verdict(t target, m, lo, hi float64, runs int) string {
	switch {
	case runs < minRuns:
		return fmt.Sprintf("MISSED (%d runs < %d)", runs, minRuns)
	case spread(m, lo, hi) > maxSpread:
		return fmt.Sprintf("UNSTABLE (spread %.0f%% > %.0f%%)", 100*spread(m, lo, hi), maxSpread*100)
	case t.met(m):
		return "met"
	}
	return "MISSED"
}

// spread is (hi − lo) over the median m (0 when all are 0).
func spread(m, lo, hi float64) float64 {
	if m == 0 {
		if hi == lo {
			return 0
		}
		return math.Inf(1)
	}
	return math.Abs(hi-lo) / math.Abs(m)
}

// ratioTo is the median over the baseline, when the baseline is a number.
func ratioTo(m float64, baseline string) string {
	f := strings.Fields(baseline)
	if len(f) == 0 {
		return "—"
	}
	num := strings.TrimRight(strings.TrimSuffix(f[0], "/s"), "%×")
	b, err := strconv.ParseFloat(num, 64)
	if err != nil || b == 0 {
		return "—"
	}
	return fmt.Sprintf("%.2f×", m/b)
}
