// Command benchsummary reads the output of `go test -bench` runs (files
// named on the command line, or standard input) and prints one table: each
// figure issue 19 sets a target for, its median over the repetitions, the
// baseline the issue measured, the ratio of the two, the target, and
// whether the run met it. `make bench` ends with it.
package main

import (
	"fmt"
	"io"
	"os"
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
	summarize(os.Stdout, s, issue19)
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "benchsummary:", err)
	os.Exit(1)
}

// summarize prints the table and a last line counting the targets met.
func summarize(w io.Writer, s samples, ts []target) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "figure\tmedian\truns\tbaseline\tratio\ttarget\tverdict")
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
			fmt.Fprintf(tw, "%s\tno data\t0\t%s\t—\t%s\tMISSED (not run)\n", t.figure, t.baseline, t.goal)
			continue
		}
		verdict := "MISSED"
		if t.met(m) {
			verdict, met = "met", met+1
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%s\t%s\t%s\n", t.figure, t.format(m), len(vs), t.baseline,
			ratioTo(m, t.baseline), t.goal, verdict)
	}
	_ = tw.Flush()
	fmt.Fprintf(w, "%d of %d targets met (medians of the repetitions)\n", met, len(ts))
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
