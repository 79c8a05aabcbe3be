package emulator_test

// Single-event benchmarks for `make bench`: the commonest real workload, a
// service posting one event per request, from one goroutine and from 32,
// beside raw franz-go ProduceSync with as many goroutines on the same
// broker in the same run; and the same produce with a Lakehouse destination
// bound, which answers once the destination has the event.

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
)

// singleValue is the one event of a single-event call, about 100 bytes.
func singleValue(i int64) []byte {
	return fmt.Appendf(nil, `{"deviceId":"sensor-%04d","seq":%d,"temperature":%.2f,"status":"ok","ts":%d}`,
		i%100, i, 18+float64(i%700)/100, 1_700_000_000_000+i)
}

// singleOp is one call of a caller: it sends one event and fails b on error.
type singleOp func(b *testing.B, seq int64)

// singleRun is one side's measurement: calls and their latencies.
type singleRun struct {
	calls int
	took  time.Duration
	lat   []time.Duration
}

// turn runs op from callers goroutines for about benchTurn and adds what
// they did to r.
func (r *singleRun) turn(b *testing.B, callers int, op singleOp, seq *atomic.Int64) {
	var mu sync.Mutex
	var wg sync.WaitGroup
	start := time.Now()
	for range callers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var lat []time.Duration
			for time.Since(start) < benchTurn {
				t := time.Now()
				op(b, seq.Add(1))
				lat = append(lat, time.Since(t))
			}
			mu.Lock()
			r.lat = append(r.lat, lat...)
			mu.Unlock()
		}()
	}
	wg.Wait()
	r.took += time.Since(start)
	r.calls = len(r.lat)
}

// report reports the side's calls/s and latency quantiles under prefix.
func (r *singleRun) report(b *testing.B, prefix string) float64 {
	slices.Sort(r.lat)
	q := func(p float64) float64 {
		if len(r.lat) == 0 {
			return 0
		}
		return float64(r.lat[int(p*float64(len(r.lat)-1))].Microseconds()) / 1000
	}
	rate := float64(r.calls) / r.took.Seconds()
	b.ReportMetric(rate, prefix+"calls/s")
	b.ReportMetric(q(0.50), prefix+"p50-ms")
	b.ReportMetric(q(0.99), prefix+"p99-ms")
	return rate
}

// singleHTTP returns a caller of the produce route of s: one event per
// call, on a client with a connection for each caller.
func singleHTTP(b *testing.B, s *benchStream, callers int) singleOp {
	return singlePoster(b, s.url+s.producePath(), s.token, callers)
}

// singlePoster returns a caller that posts one event per call to url as
// the produce route takes it, on a client with a connection for each
// caller, and fails b unless the answer says one event was produced.
func singlePoster(b *testing.B, url, token string, callers int) singleOp {
	tr := &http.Transport{MaxIdleConnsPerHost: callers + 4}
	b.Cleanup(tr.CloseIdleConnections)
	client := &http.Client{Transport: tr, Timeout: time.Minute}
	return func(b *testing.B, seq int64) {
		body := fmt.Appendf(nil, `{"events":[{"value":%s}]}`, singleValue(seq))
		req, err := http.NewRequest("POST", url, bytes.NewReader(body))
		if err != nil {
			b.Error(err)
			return
		}
		req.Header.Set("Authorization", "Bearer "+token)
		req.Header.Set("Content-Type", "application/json")
		hr, err := client.Do(req)
		if err != nil {
			b.Errorf("produce: %v", err)
			return
		}
		raw, err := io.ReadAll(hr.Body)
		hr.Body.Close()
		if err != nil || hr.StatusCode != 200 || !bytes.Contains(raw, []byte(`"produced":1`)) {
			b.Errorf("produce: status %d, %v: %.300s", hr.StatusCode, err, raw)
		}
	}
}

// noopProduce is an HTTP server whose every answer is the produce route's
// to one event, after reading the body and nothing else: no token check,
// no parsing, no broker. What the benchmark client reaches against it is
// the most any produce route served by net/http can reach on the machine.
func noopProduce(b *testing.B) string {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"produced":1}`))
	}))
	b.Cleanup(srv.Close)
	return srv.URL
}

// singleRaw returns a caller of kgo ProduceSync with one record per call,
// every caller on one client, as a service shares its producer.
func singleRaw(b *testing.B) singleOp {
	s := benchNewStream(b)
	cl := benchRawClient(b, s)
	return func(b *testing.B, seq int64) {
		if err := cl.ProduceSync(b.Context(), &kgo.Record{Value: singleValue(seq)}).FirstErr(); err != nil {
			b.Errorf("produce: %v", err)
		}
	}
}

// benchSinglePair runs the HTTP and the raw side in turns (as benchPair).
func benchSinglePair(b *testing.B, callers int) {
	benchSingleAgainstRaw(b, callers, singleHTTP(b, benchNewStream(b), callers), "http")
}

// benchSingleAgainstRaw runs op (reported under name) and raw franz-go in
// turns with callers goroutines each, and reports each side's calls/s,
// p50 and p99, and op's share of the raw side's calls/s.
func benchSingleAgainstRaw(b *testing.B, callers int, op singleOp, name string) {
	ops := [2]singleOp{op, singleRaw(b)}
	var seq atomic.Int64
	for _, op := range ops {
		op(b, seq.Add(1)) // warm
	}
	var runs [2]singleRun
	for b.Loop() {
		for k, op := range ops {
			runs[k].turn(b, callers, op, &seq)
		}
	}
	h := runs[0].report(b, name+"-")
	r := runs[1].report(b, "raw-")
	b.ReportMetric(100*h/r, name+"/raw-%")
}

// benchSingleBound runs the HTTP side alone on a stream with a Lakehouse
// destination bound: each call answers once the table has its event.
func benchSingleBound(b *testing.B, callers int) {
	s := benchNewStream(b)
	bindLakehouse(b, stream{e: s.testEnv, ws: s.ws, id: s.id, ds: s.ds}, "bench")
	op := singleHTTP(b, s, callers)
	var seq atomic.Int64
	op(b, seq.Add(1)) // warm: the table's first commit
	var run singleRun
	for b.Loop() {
		run.turn(b, callers, op, &seq)
	}
	run.report(b, "http-")
}

// benchSinglePaced sends single events at rate calls a second to a stream
// with a Lakehouse destination bound and no batching setting, each call on
// a goroutine of its own at its scheduled time (an open loop: a slow
// answer does not hold the next send back). A call answers once the
// table has committed its event, so its latency, from its scheduled time
// to its answer, is the produce → Delta commit time.
func benchSinglePaced(b *testing.B, rate int) {
	s := benchNewStream(b)
	bindLakehouse(b, stream{e: s.testEnv, ws: s.ws, id: s.id, ds: s.ds}, "bench")
	op := singleHTTP(b, s, 64)
	var seq atomic.Int64
	op(b, seq.Add(1)) // warm: the table's first commit
	interval := time.Second / time.Duration(rate)
	var run singleRun
	var mu sync.Mutex
	for b.Loop() {
		var wg sync.WaitGroup
		start := time.Now()
		for at := start; at.Sub(start) < benchTurn; at = at.Add(interval) {
			time.Sleep(time.Until(at))
			wg.Add(1)
			go func() {
				defer wg.Done()
				op(b, seq.Add(1))
				d := time.Since(at)
				mu.Lock()
				run.lat = append(run.lat, d)
				mu.Unlock()
			}()
		}
		wg.Wait()
		run.took += time.Since(start)
		run.calls = len(run.lat)
	}
	run.report(b, "http-")
}

// BenchmarkSingle: one event per call, from 1 and from 32 callers, through
// the HTTP produce route and through raw franz-go in the same run; through
// the route with a Lakehouse destination bound; and at a steady 1,000
// calls a second to a bound Lakehouse (the produce → commit latency). The
// ceiling runs put the same client against a server that does nothing but
// answer (noopProduce): the most an HTTP route can reach beside raw.
func BenchmarkSingle(b *testing.B) {
	for _, n := range []int{1, 32} {
		b.Run(fmt.Sprintf("callers=%d", n), func(b *testing.B) { benchSinglePair(b, n) })
	}
	for _, n := range []int{1, 32} {
		b.Run(fmt.Sprintf("bound/callers=%d", n), func(b *testing.B) { benchSingleBound(b, n) })
	}
	b.Run("bound/paced=1000", func(b *testing.B) { benchSinglePaced(b, 1000) })
	for _, n := range []int{1, 32} {
		b.Run(fmt.Sprintf("ceiling/callers=%d", n), func(b *testing.B) {
			benchSingleAgainstRaw(b, n, singlePoster(b, noopProduce(b)+"/events", "unused", n), "noop")
		})
	}
}
