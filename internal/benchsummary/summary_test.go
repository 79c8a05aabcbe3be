package main

import (
	"bytes"
	"regexp"
	"strings"
	"testing"
)

// Output as `go test -bench -count 5` prints it (the format is Go's
// benchmark data format, golang.org/design/14313-benchmark-format),
// with test logs between results.
const sampleRun = `goos: linux
goarch: amd64
pkg: github.com/fabrictest/fabrictest/emulator
BenchmarkRatios/produce-2         	      15	 200000000 ns/op	    540000 http-events/s	   1000000 raw-events/s	        54.0 http/raw-%
BenchmarkRatios/consume-2         	      15	 200000000 ns/op	    100000 http-events/s	   1000000 raw-events/s	        10.0 http/raw-%
BenchmarkRatios/produce-2         	      15	 200000000 ns/op	    550000 http-events/s	   1000000 raw-events/s	        55.0 http/raw-%
BenchmarkRatios/consume-2         	      15	 200000000 ns/op	    900000 http-events/s	   1000000 raw-events/s	        90.0 http/raw-%
BenchmarkRatios/produce-2         	      15	 200000000 ns/op	    570000 http-events/s	   1000000 raw-events/s	        57.0 http/raw-%
BenchmarkRatios/consume-2         	      15	 200000000 ns/op	    300000 http-events/s	   1000000 raw-events/s	        30.0 http/raw-%
BenchmarkRatios/produce-2         	      15	 200000000 ns/op	    560000 http-events/s	   1000000 raw-events/s	        56.0 http/raw-%
BenchmarkRatios/produce-2         	      15	 200000000 ns/op	    550000 http-events/s	   1000000 raw-events/s	        55.0 http/raw-%
BenchmarkSingle/callers=32-2      	      10	 220000000 ns/op	      9000 http-calls/s	         1.0 http-p50-ms	         4.0 http-p99-ms	        30.0 http/raw-%	     30000 raw-calls/s
BenchmarkSingle/callers=32-2      	      10	 220000000 ns/op	      9000 http-calls/s	         1.0 http-p50-ms	         4.1 http-p99-ms	        30.0 http/raw-%	     30000 raw-calls/s
BenchmarkSingle/callers=32-2      	      10	 220000000 ns/op	      9000 http-calls/s	         1.0 http-p50-ms	         4.2 http-p99-ms	        30.0 http/raw-%	     30000 raw-calls/s
BenchmarkSingle/callers=32-2      	      10	 220000000 ns/op	      9000 http-calls/s	         1.0 http-p50-ms	         4.3 http-p99-ms	        30.0 http/raw-%	     30000 raw-calls/s
BenchmarkSingle/callers=32-2      	      10	 220000000 ns/op	      9000 http-calls/s	         1.0 http-p50-ms	         4.1 http-p99-ms	        30.0 http/raw-%	     30000 raw-calls/s
PASS
BenchmarkDrainToDelta-2       	       1	7092270334 ns/op	       207.8 peak-RSS-MB	    800000 rows/s
BenchmarkDrainToDelta-2       	drain: 1000000 events topic→Delta in 4.127s = 242322 rows/s; peak RSS 240 MB
       1	5766156322 ns/op	       240.0 peak-RSS-MB	    760000 rows/s
BenchmarkDrainToDelta-2       	drain: 1000000 events topic→Delta in 6.788s = 147329 rows/s; peak RSS 261 MB
       1	8802193248 ns/op	       261.1 peak-RSS-MB	    770000 rows/s
BenchmarkDrainToDelta-2       	       1	7092270334 ns/op	       230.0 peak-RSS-MB	    790000 rows/s
BenchmarkDrainToDelta-2       	       1	7092270334 ns/op	       250.0 peak-RSS-MB	    780000 rows/s
pkg: github.com/fabrictest/fabrictest/emulator/internal/gateway
BenchmarkGatewayRatio/produce-2         	     489	   2789612 ns/op	    805480 direct-records/s	    646199 gateway-records/s	        86.0 gateway/direct-%
BenchmarkGatewayRatio/produce-2         	     553	   2490809 ns/op	    917005 direct-records/s	    714379 gateway-records/s	        87.0 gateway/direct-%
BenchmarkGatewayRatio/produce-2         	     510	   2036733 ns/op	   1053096 direct-records/s	    920241 gateway-records/s	        86.0 gateway/direct-%
BenchmarkGatewayRatio/produce-2         	     510	   2036733 ns/op	   1053096 direct-records/s	    920241 gateway-records/s	        88.0 gateway/direct-%
BenchmarkGatewayRatio/produce-2         	     510	   2036733 ns/op	   1053096 direct-records/s	    920241 gateway-records/s	        85.0 gateway/direct-%
pkg: github.com/fabrictest/fabrictest/emulator/delta
BenchmarkCheckpointedLog-2   	       1	4538023706 ns/op	         0.8837 append-10000/100	       592.0 append-us@100	         1.7 open-10000/100	  85.0 open-replay-10000/100
ok  	github.com/fabrictest/fabrictest/emulator/delta	5.9s
`

func TestSummaryTakesMinMedianMaxOfSameRunRatios(t *testing.T) {
	s := samples{}
	if err := s.read(strings.NewReader(sampleRun), "sample"); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	summarize(&out, s, allTargets(), 2)
	if !strings.HasPrefix(out.String(), "machine: 2 cores\n") {
		t.Errorf("the summary does not start with the machine's core count:\n%s", out.String())
	}
	rows := table(t, out.String())
	for figure, want := range map[string][]string{
		// produce ratios 54, 55, 57, 56, 55: median 55%, spread 3/55 (5%), under the target
		"HTTP produce / raw franz-go": {"54.0%", "55.0%", "57.0%", "5", "23.0%", "2.39×", ">= 75%", "MISSED"},
		// three runs only: not met whatever the figure
		"HTTP consume / raw franz-go":       {"10.0%", "30.0%", "90.0%", "3", "6.5%", "4.62×", ">= 75%", "MISSED (3 runs < 5)"},
		"append at v10,000 / at v100 (CPU)": {"0.88×", "0.88×", "0.88×", "1", "— (no checkpoints)", "—", "<= 1.5×", "MISSED (1 runs < 5)"},
		// the baseline measured in the same run: opening by replaying the log
		"open at v10,000 / at v100 (CPU)": {"1.70×", "1.70×", "1.70×", "1", "85.00× (this run)", "0.02×", "<= 1.5×", "MISSED (1 runs < 5)"},
		// a benchmark that prints between its name and its figures; spread 40,000/780,000
		"drain 1,000,000 events into Delta": {"760000/s", "780000/s", "800000/s", "5", "388660/s", "2.01×", ">= 750000/s", "met"},
		// spread 53.3 MB over a median of 240 MB: 22% > 15%
		"drain peak RSS (with the broker)": {"208 MB", "240 MB", "261 MB", "5", "236 MB", "1.02×", "< 256 MB", "UNSTABLE (spread 22% > 15%)"},
		"gateway produce / direct":         {"85.0%", "86.0%", "88.0%", "5", "—", "—", ">= 85%", "met"},
		"gateway consume / direct":         {"—", "no data", "—", "0", "42% (75% in another run)", "—", ">= 80%", "MISSED (not run)"},
		// a latency, lower is better
		"single events, 32 callers: HTTP p99":   {"4.00 ms", "4.10 ms", "4.30 ms", "5", "75.43 ms", "0.05×", "< 5 ms", "met"},
		"single events, 32 callers: HTTP / raw": {"30.0%", "30.0%", "30.0%", "5", "1.5%", "20.00×", ">= 50%", "MISSED"},
	} {
		if got := rows[figure]; strings.Join(got, "|") != strings.Join(want, "|") {
			t.Errorf("%s: got %q, want %q", figure, got, want)
		}
	}
	if !strings.Contains(out.String(), "3 of 21 targets met") {
		t.Errorf("no count of targets met:\n%s", out.String())
	}
}

func TestVerdict(t *testing.T) {
	atLeast10 := target{met: func(v float64) bool { return v >= 10 }}
	for _, c := range []struct {
		m, lo, hi float64
		runs      int
		want      string
	}{
		{10, 9, 10.5, 5, "met"},
		{10, 9, 10.5, 4, "MISSED (4 runs < 5)"},
		{10, 9, 10.6, 5, "UNSTABLE (spread 16% > 15%)"},
		{10, 8.5, 10, 5, "met"}, // exactly 15%
		{9, 8.5, 9.5, 7, "MISSED"},
		{0, 0, 0, 5, "MISSED"},
		{0, 0, 1, 5, "UNSTABLE (spread +Inf% > 15%)"},
	} {
		if got := verdict(atLeast10, c.m, c.lo, c.hi, c.runs); got != c.want {
			t.Errorf("verdict(median %v, %v..%v, %d runs) = %q, want %q", c.m, c.lo, c.hi, c.runs, got, c.want)
		}
	}
}

// table splits the printed table into its columns, by figure.
func table(t *testing.T, out string) map[string][]string {
	t.Helper()
	rows := map[string][]string{}
	sep := regexp.MustCompile(`\s{2,}`)
	for _, l := range strings.Split(out, "\n") {
		cols := sep.Split(strings.TrimSpace(l), -1)
		if len(cols) == 9 {
			rows[cols[0]] = cols[1:]
		}
	}
	if len(rows) != len(allTargets())+1 {
		t.Fatalf("table has %d rows, want %d:\n%s", len(rows), len(allTargets())+1, out)
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

// A ceiling pairs the figures of the same repetition: 1 caller's is the
// two hops in series, noop/(noop+raw).
func TestCeilingsPairRepetitions(t *testing.T) {
	const run = `BenchmarkSingle/ceiling/callers=1-2   	10	 200000000 ns/op	     30000 noop-calls/s	   100.0 noop/raw-%	     30000 raw-calls/s
BenchmarkSingle/ceiling/callers=1-2   	10	 200000000 ns/op	     30000 noop-calls/s	   33.3 noop/raw-%	     90000 raw-calls/s
BenchmarkSingle/ceiling/callers=32-2  	10	 200000000 ns/op	     40000 noop-calls/s	   35.0 noop/raw-%	    120000 raw-calls/s
BenchmarkReceive-2   	  600000	      3807 ns/op	    250000 events/s
BenchmarkSDKSendBatch1000-2   	    1040	   2401620 ns/op	    400000 events/s
BenchmarkEventHubsRatio/send-2         	      10	 201847631 ns/op	    344739 amqp-events/s	        22.39 amqp/kafka-%	   1600000 kafka-events/s
BenchmarkEventHubsRatio/receive-2      	10	 206864429 ns/op	    130000 amqp-events/s	         7.0 amqp/kafka-%	   2000000 kafka-events/s
`
	s := samples{}
	if err := s.read(strings.NewReader(run), "sample"); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	summarizeCeilings(&out, s, allCeilings())
	got := regexp.MustCompile(` {2,}`).ReplaceAllString(out.String(), "  ")
	for _, want := range []string{
		// 1/(1/30000+1/30000) = 15000 of 30000; 1/(1/30000+1/90000) = 22500 of 90000
		"25.0%  37.5%  50.0%  2  single events, 1 caller: HTTP / raw >= 50%",
		"35.0%  35.0%  35.0%  1  single events, 32 callers",
		"25.0%  25.0%  25.0%  1  Event Hubs (AMQP) send",
		"12.5%  12.5%  12.5%  1  Event Hubs (AMQP) receive",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("no %q in:\n%s", want, got)
		}
	}
}
