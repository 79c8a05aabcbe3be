package main

import (
	"bytes"
	"regexp"
	"strings"
	"testing"
)

// Output as `go test -bench -count 3` prints it (the format is Go's
// benchmark data format, golang.org/design/14313-benchmark-format),
// with test logs between results.
const sampleRun = `goos: linux
goarch: amd64
pkg: github.com/fabrictest/fabrictest/emulator
BenchmarkRatios/produce-2         	      15	 200000000 ns/op	    600000 http-events/s	   1000000 raw-events/s	        60.0 http/raw-%
BenchmarkRatios/consume-2         	      15	 200000000 ns/op	    100000 http-events/s	   1000000 raw-events/s	        10.0 http/raw-%
BenchmarkRatios/produce-2         	      15	 200000000 ns/op	    200000 http-events/s	   1000000 raw-events/s	        20.0 http/raw-%
BenchmarkRatios/consume-2         	      15	 200000000 ns/op	    900000 http-events/s	   1000000 raw-events/s	        90.0 http/raw-%
BenchmarkRatios/produce-2         	      15	 200000000 ns/op	    550000 http-events/s	   1000000 raw-events/s	        55.0 http/raw-%
BenchmarkRatios/consume-2         	      15	 200000000 ns/op	    300000 http-events/s	   1000000 raw-events/s	        30.0 http/raw-%
PASS
BenchmarkDrainToDelta-2       	       1	7092270334 ns/op	       207.8 peak-RSS-MB	    162164 rows/s
BenchmarkDrainToDelta-2       	drain: 1000000 events topic→Delta in 4.127s = 242322 rows/s; peak RSS 240 MB
       1	5766156322 ns/op	       240.0 peak-RSS-MB	    800000 rows/s
BenchmarkDrainToDelta-2       	drain: 1000000 events topic→Delta in 6.788s = 147329 rows/s; peak RSS 261 MB
       1	8802193248 ns/op	       261.1 peak-RSS-MB	    760000 rows/s
pkg: github.com/fabrictest/fabrictest/emulator/internal/gateway
BenchmarkGatewayRatio/produce-2         	     489	   2789612 ns/op	    805480 direct-records/s	    646199 gateway-records/s	        80.0 gateway/direct-%
BenchmarkGatewayRatio/produce-2         	     553	   2490809 ns/op	    917005 direct-records/s	    714379 gateway-records/s	        90.0 gateway/direct-%
BenchmarkGatewayRatio/produce-2         	     510	   2036733 ns/op	   1053096 direct-records/s	    920241 gateway-records/s	        86.0 gateway/direct-%
pkg: github.com/fabrictest/fabrictest/emulator
BenchmarkEventHubsRatio/send-2         	      16	 202102139 ns/op	    245745 amqp-events/s	        70.0 amqp/kafka-%	   1253450 kafka-events/s
BenchmarkEventHubsRatio/receive-2      	       8	 688270801 ns/op	      1862 amqp-events/s	        10.0 amqp/kafka-%	    219252 kafka-events/s
BenchmarkEventHubsRatio/send-2         	      16	 202102139 ns/op	    245745 amqp-events/s	        20.0 amqp/kafka-%	   1253450 kafka-events/s
BenchmarkEventHubsRatio/send-2         	      16	 202102139 ns/op	    245745 amqp-events/s	        65.0 amqp/kafka-%	   1253450 kafka-events/s
pkg: github.com/fabrictest/fabrictest/emulator/delta
BenchmarkCheckpointedLog-2   	       1	4538023706 ns/op	         0.8837 append-10000/100	       592.0 append-us@100	         1.7 open-10000/100	  85.0 open-replay-10000/100
ok  	github.com/fabrictest/fabrictest/emulator/delta	5.9s
`

func TestSummaryTakesMediansOfSameRunRatios(t *testing.T) {
	s := samples{}
	if err := s.read(strings.NewReader(sampleRun), "sample"); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	summarize(&out, s, issue19)
	rows := table(t, out.String())
	for figure, want := range map[string][]string{
		// produce ratios 60%, 20%, 55%: median 55%, 2.39× the baseline 23.0%
		"HTTP produce / raw franz-go": {"55.0%", "3", "23.0%", "2.39×", ">= 50%", "met"},
		// consume ratios 10%, 90%, 30%: median 30%
		"HTTP consume / raw franz-go":       {"30.0%", "3", "6.5%", "4.62×", ">= 50%", "MISSED"},
		"append at v10,000 / at v100 (CPU)": {"0.88×", "1", "— (no checkpoints)", "—", "<= 1.5×", "met"},
		// the baseline measured in the same run: opening by replaying the log
		"open at v10,000 / at v100 (CPU)": {"1.70×", "1", "85.00× (this run)", "0.02×", "<= 1.5×", "MISSED"},
		// a benchmark that prints between its name and its figures
		"drain 1,000,000 events into Delta": {"760000/s", "3", "388660/s", "1.96×", ">= 750000/s", "met"},
		"drain peak RSS (with the broker)":  {"240 MB", "3", "236 MB", "1.02×", "< 256 MB", "met"},
		// the median of the runs' own ratios (each the median of paired iterations)
		"gateway produce / direct": {"86.0%", "3", "—", "—", ">= 85%", "met"},
		"gateway consume / direct": {"no data", "0", "42% (75% in another run)", "—", ">= 80%", "MISSED (not run)"},
		// the Event Hubs door's send ratios 70%, 20%, 65%: median 65%
		"Event Hubs (AMQP) send / Kafka endpoint produce":  {"65.0%", "3", "—", "—", ">= 60%", "met"},
		"Event Hubs (AMQP) receive / Kafka endpoint fetch": {"10.0%", "1", "—", "—", ">= 60%", "MISSED"},
	} {
		if got := rows[figure]; strings.Join(got, "|") != strings.Join(want, "|") {
			t.Errorf("%s: got %q, want %q", figure, got, want)
		}
	}
	if !strings.Contains(out.String(), "6 of 13 targets met") {
		t.Errorf("no count of targets met:\n%s", out.String())
	}
}

// table splits the printed table into its columns, by figure.
func table(t *testing.T, out string) map[string][]string {
	t.Helper()
	rows := map[string][]string{}
	sep := regexp.MustCompile(`\s{2,}`)
	for _, l := range strings.Split(out, "\n") {
		cols := sep.Split(strings.TrimSpace(l), -1)
		if len(cols) == 7 {
			rows[cols[0]] = cols[1:]
		}
	}
	if len(rows) != len(issue19)+1 {
		t.Fatalf("table has %d rows, want %d:\n%s", len(rows), len(issue19)+1, out)
	}
	return rows
}

func TestMedian(t *testing.T) {
	for _, c := range []struct {
		in   []float64
		want float64
	}{{[]float64{3, 1, 2}, 2}, {[]float64{4, 1, 3, 2}, 2.5}, {[]float64{7}, 7}} {
		if got, ok := median(c.in); !ok || got != c.want {
			t.Errorf("median(%v) = %v, want %v", c.in, got, c.want)
		}
	}
	if _, ok := median(nil); ok {
		t.Errorf("median of nothing is ok")
	}
}

func TestRatioTo(t *testing.T) {
	for base, want := range map[string]string{"23.0%": "2.00×", "388660/s": "0.00×", "—": "—", "42% (75% in another run)": "1.10×"} {
		m := 46.0
		if base == "42% (75% in another run)" {
			m = 46.2
		}
		if got := ratioTo(m, base); got != want {
			t.Errorf("ratioTo(%v, %q) = %s, want %s", m, base, got, want)
		}
	}
}
