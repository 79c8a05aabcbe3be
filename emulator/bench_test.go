package emulator_test

// Benchmarks for `make bench`: the HTTP produce and consume routes against
// franz-go talking straight to the same kind of broker (the embedded kfake),
// their ratio, and the standalone binary's idle RSS.
//
// Targets (issue 19): HTTP produce and HTTP consume each ≥ 50% of raw
// franz-go throughput in the same run; idle RSS < 64 MB.
// The benchmarks report and log them; they do not fail on a miss.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
)

const (
	benchBatch = 1000 // events per produce call / records per read

	benchTargetIdleRSSMB = 64.0
)

// benchStream is an emulator behind an httptest server with one Eventstream,
// resolved to its bootstrap servers and topic.
type benchStream struct {
	*testEnv
	ws, id, ds       string
	bootstrap, topic string
	answer           bytes.Buffer // the last answer's body, reused
}

func benchNewStream(tb testing.TB) *benchStream {
	tb.Helper()
	e := startEnv(tb)
	tr := &http.Transport{MaxIdleConnsPerHost: 4}
	tb.Cleanup(tr.CloseIdleConnections)
	e.client = &http.Client{Transport: tr, Timeout: time.Minute}
	s := &benchStream{testEnv: e}
	var ws struct{ ID string }
	s.json(tb, "POST", "/v1/workspaces", `{"displayName": "bench"}`, 201, &ws)
	var es struct {
		ID         string
		Properties struct{ Streams []struct{ ID string } }
	}
	s.json(tb, "POST", "/v1/workspaces/"+ws.ID+"/eventstreams", `{"displayName": "bench-es"}`, 201, &es)
	if len(es.Properties.Streams) == 0 {
		tb.Fatal("eventstream without streams")
	}
	s.ws, s.id, s.ds = ws.ID, es.ID, es.Properties.Streams[0].ID
	var res struct{ BootstrapServers, Topic string }
	s.json(tb, "GET", "/v1/eventstreams/"+s.id+"/sources/"+s.ds, "", 200, &res)
	s.bootstrap, s.topic = res.BootstrapServers, res.Topic
	return s
}

// do sends one request and returns the status and the whole answer. The
// answer is read into a buffer the stream keeps, valid until the next call:
// a client that reads answers in a loop reuses its buffer, and a fresh,
// growing buffer per answer (io.ReadAll) cost the benchmark about a tenth
// of the consume route's time, none of it the emulator's.
func (s *benchStream) do(tb testing.TB, method, path string, body []byte) (int, []byte) {
	tb.Helper()
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequest(method, s.url+path, rd)
	if err != nil {
		tb.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+s.token)
	req.Header.Set("Content-Type", "application/json")
	hr, err := s.client.Do(req)
	if err != nil {
		tb.Fatalf("%s %s: %v", method, path, err)
	}
	defer hr.Body.Close()
	s.answer.Reset()
	if _, err := s.answer.ReadFrom(hr.Body); err != nil {
		tb.Fatalf("%s %s: read answer: %v", method, path, err)
	}
	return hr.StatusCode, s.answer.Bytes()
}

func (s *benchStream) json(tb testing.TB, method, path, body string, want int, v any) {
	tb.Helper()
	var b []byte
	if body != "" {
		b = []byte(body)
	}
	status, raw := s.do(tb, method, path, b)
	if status != want {
		tb.Fatalf("%s %s: status %d, want %d: %s", method, path, status, want, raw)
	}
	if err := json.Unmarshal(raw, v); err != nil {
		tb.Fatalf("%s %s: %v: %s", method, path, err, raw)
	}
}

func (s *benchStream) producePath() string {
	return "/v1/workspaces/" + s.ws + "/eventstreams/" + s.id + "/sources/" + s.ds + "/events"
}

func (s *benchStream) consumePath() string {
	return "/v1/eventstreams/" + s.id + "/sources/" + s.ds + "/events"
}

// benchEvents is one batch of small JSON events (about 100 bytes each): the
// HTTP body, and the same keys and values as Kafka will hold them.
type benchEvents struct {
	body         []byte
	keys, values [][]byte
	payload      int64 // key and value bytes of the batch
}

func newBenchEvents() benchEvents {
	var ev benchEvents
	var body bytes.Buffer
	body.WriteString(`{"events":[`)
	for i := range benchBatch {
		key := fmt.Sprintf("sensor-%04d", i%100)
		// Compact already, so the emulator stores these exact bytes.
		value := fmt.Sprintf(`{"deviceId":"%s","seq":%d,"temperature":%.2f,"humidity":%.1f,"status":"ok","ts":%d}`,
			key, i, 18+float64(i%700)/100, 40+float64(i%300)/10, 1_700_000_000_000+int64(i))
		if i > 0 {
			body.WriteByte(',')
		}
		fmt.Fprintf(&body, `{"key":%q,"value":%s}`, key, value)
		ev.keys = append(ev.keys, []byte(key))
		ev.values = append(ev.values, []byte(value))
		ev.payload += int64(len(key) + len(value))
	}
	body.WriteString(`]}`)
	ev.body = body.Bytes()
	return ev
}

func (ev benchEvents) records() []*kgo.Record {
	recs := make([]*kgo.Record, len(ev.keys))
	for i := range recs {
		recs[i] = &kgo.Record{Key: ev.keys[i], Value: ev.values[i]}
	}
	return recs
}

// A benchSide makes one side of a figure ready (an emulator, a client, a
// filled topic) and returns its operation: one batch of benchBatch events,
// failing b on error.
type benchSide func(b *testing.B) (op func())

// benchOne times side alone and reports its events/s.
func benchOne(b *testing.B, side benchSide) {
	op := side(b)
	op() // warm: connections, metadata, producer ID
	b.SetBytes(newBenchEvents().payload)
	iters := 0
	for b.Loop() {
		op()
		iters++
	}
	b.ReportMetric(float64(iters*benchBatch)/b.Elapsed().Seconds(), "events/s")
}

// benchTurn is how long one side of a pair runs before the other takes
// its turn.
const benchTurn = 100 * time.Millisecond

// benchPair runs the HTTP side and the raw side of one figure in turns of
// benchTurn each, so that a slow stretch of the machine (a neighbour, a
// collection) falls on both sides alike rather than on whichever ran then;
// it reports each side's events/s and the HTTP side's share of the raw
// side's, the figure issue 19 sets a target for.
func benchPair(b *testing.B, httpSide, rawSide benchSide) {
	sides := [2]func(){httpSide(b), rawSide(b)}
	for _, op := range sides {
		op() // warm
	}
	var took [2]time.Duration
	var batches [2]int
	for b.Loop() {
		for k, op := range sides {
			start := time.Now()
			for time.Since(start) < benchTurn {
				op()
				batches[k]++
			}
			took[k] += time.Since(start)
		}
	}
	var rate [2]float64
	for k := range rate {
		rate[k] = float64(batches[k]*benchBatch) / took[k].Seconds()
	}
	b.ReportMetric(rate[0], "http-events/s")
	b.ReportMetric(rate[1], "raw-events/s")
	b.ReportMetric(100*rate[0]/rate[1], "http/raw-%")
}

// httpProduceSide posts batches of 1,000 events to the produce route.
func httpProduceSide(b *testing.B) func() {
	s := benchNewStream(b)
	ev := newBenchEvents()
	path := s.producePath()
	return func() {
		status, raw := s.do(b, "POST", path, ev.body)
		if status != 200 || !bytes.Contains(raw, []byte(`"produced":1000`)) {
			b.Fatalf("produce: status %d: %.300s", status, raw)
		}
	}
}

// benchRawClient is a franz-go client with the emulator's own producer
// settings (no linger, large buffer, default acks=all and idempotence).
func benchRawClient(b *testing.B, s *benchStream, opts ...kgo.Opt) *kgo.Client {
	cl, err := kgo.NewClient(append([]kgo.Opt{
		kgo.SeedBrokers(strings.Split(s.bootstrap, ",")...),
		kgo.DefaultProduceTopic(s.topic),
		kgo.ProducerLinger(0),
		kgo.MaxBufferedRecords(1_000_000),
	}, opts...)...)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(cl.Close)
	return cl
}

// rawProduceSide produces the same batches with kgo ProduceSync straight
// to the broker.
func rawProduceSide(b *testing.B) func() {
	s := benchNewStream(b)
	ev := newBenchEvents()
	cl := benchRawClient(b, s)
	return func() {
		if err := cl.ProduceSync(b.Context(), ev.records()...).FirstErr(); err != nil {
			b.Fatalf("produce: %v", err)
		}
	}
}

// benchFill produces one batch through HTTP for the consume benchmarks and
// returns the partitions it landed in.
func benchFill(b *testing.B, s *benchStream, ev benchEvents) []int32 {
	var ans struct {
		Partitions []struct{ Partition int32 }
	}
	s.json(b, "POST", s.producePath(), string(ev.body), 200, &ans)
	var parts []int32
	for _, p := range ans.Partitions {
		parts = append(parts, p.Partition)
	}
	return parts
}

// httpConsumeSide reads the 1,000 records back through the consume route
// (earliest to latest, every partition).
func httpConsumeSide(b *testing.B) func() {
	s := benchNewStream(b)
	benchFill(b, s, newBenchEvents())
	path := s.consumePath()
	return func() {
		status, raw := s.do(b, "GET", path, nil)
		if status != 200 || !bytes.Contains(raw, []byte(`"count":1000,`)) {
			b.Fatalf("consume: status %d: %.300s", status, raw)
		}
	}
}

// benchPoll polls cl until it has exactly n records.
func benchPoll(b *testing.B, cl *kgo.Client, n int) {
	ctx, cancel := context.WithTimeout(b.Context(), 30*time.Second)
	defer cancel()
	got := 0
	for got < n {
		fs := cl.PollFetches(ctx)
		if err := ctx.Err(); err != nil {
			b.Fatalf("poll: %d of %d records: %v", got, n, err)
		}
		fs.EachError(func(t string, p int32, err error) { b.Fatalf("fetch %s/%d: %v", t, p, err) })
		got += fs.NumRecords()
	}
	if got != n {
		b.Fatalf("read %d records, want %d", got, n)
	}
}

// benchConsumeOpts are a raw consumer's settings: the filled partitions
// from offset 0, and the emulator's own consumer's fetch wait.
func benchConsumeOpts(topic string, parts []int32) []kgo.Opt {
	from := map[int32]kgo.Offset{}
	for _, p := range parts {
		from[p] = kgo.NewOffset().At(0)
	}
	return []kgo.Opt{
		kgo.ConsumePartitions(map[string]map[int32]kgo.Offset{topic: from}),
		kgo.FetchMaxWait(250 * time.Millisecond),
	}
}

// rawConsumeSide reads the 1,000 records back with one long-lived franz-go
// consumer, rewound to offset 0 on every partition after each read: what a
// Kafka client that keeps its connection gets.
func rawConsumeSide(b *testing.B) func() {
	s := benchNewStream(b)
	parts := benchFill(b, s, newBenchEvents())
	rewind := map[int32]kgo.EpochOffset{}
	for _, p := range parts {
		rewind[p] = kgo.EpochOffset{Epoch: -1, Offset: 0}
	}
	cl := benchRawClient(b, s, benchConsumeOpts(s.topic, parts)...)
	return func() {
		benchPoll(b, cl, benchBatch)
		cl.SetOffsets(map[string]map[int32]kgo.EpochOffset{s.topic: rewind})
	}
}

// rawConsumeNewClientSide reads them with a new franz-go consumer per read.
func rawConsumeNewClientSide(b *testing.B) func() {
	s := benchNewStream(b)
	parts := benchFill(b, s, newBenchEvents())
	return func() {
		cl, err := kgo.NewClient(append([]kgo.Opt{kgo.SeedBrokers(strings.Split(s.bootstrap, ",")...)},
			benchConsumeOpts(s.topic, parts)...)...)
		if err != nil {
			b.Fatal(err)
		}
		defer cl.Close()
		benchPoll(b, cl, benchBatch)
	}
}

// BenchmarkHTTPProduce: batches of 1,000 small JSON events through the HTTP
// produce route to the embedded broker.
func BenchmarkHTTPProduce(b *testing.B) { benchOne(b, httpProduceSide) }

// BenchmarkRawProduce: the same 1,000 records with kgo ProduceSync straight
// to the same kind of broker.
func BenchmarkRawProduce(b *testing.B) { benchOne(b, rawProduceSide) }

// BenchmarkHTTPConsume: 1,000 records read back through the consume route.
func BenchmarkHTTPConsume(b *testing.B) { benchOne(b, httpConsumeSide) }

// BenchmarkRawConsume: 1,000 records read back by a long-lived franz-go consumer.
func BenchmarkRawConsume(b *testing.B) { benchOne(b, rawConsumeSide) }

// BenchmarkRawConsumeNewClient: 1,000 records read back by a new franz-go
// consumer each time.
func BenchmarkRawConsumeNewClient(b *testing.B) { benchOne(b, rawConsumeNewClientSide) }

// BenchmarkRatios runs the HTTP and the raw side of produce and of consume
// in turns in the same run (benchPair) and reports HTTP throughput as a
// share of raw franz-go's: issue 19's targets, both >= 50%.
func BenchmarkRatios(b *testing.B) {
	b.Run("produce", func(b *testing.B) { benchPair(b, httpProduceSide, rawProduceSide) })
	b.Run("consume", func(b *testing.B) { benchPair(b, httpConsumeSide, rawConsumeSide) })
}

// BenchmarkIdleRSS builds the fabric-emulator binary, starts it on a free
// port, waits for its ready line, lets it idle 2 s, reports VmRSS in MB, and
// stops it with SIGTERM, which must end it with status 0 within 10 s.
func BenchmarkIdleRSS(b *testing.B) {
	if runtime.GOOS != "linux" {
		b.Skip("reads /proc/PID/status")
	}
	goCmd, err := exec.LookPath("go")
	if err != nil {
		b.Fatalf("find the go command to build the binary: %v", err)
	}
	bin := filepath.Join(b.TempDir(), "fabric-emulator")
	ctx, cancel := context.WithTimeout(b.Context(), 5*time.Minute)
	defer cancel()
	if out, err := exec.CommandContext(ctx, goCmd, "build", "-o", bin, "github.com/fabrictest/fabrictest/emulator/cmd/fabric-emulator").CombinedOutput(); err != nil {
		b.Fatalf("go build fabric-emulator: %v: %s", err, out)
	}

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()

	cmd := exec.Command(bin, "serve", "--addr", addr, "--kafka", "embedded", "--kafka-endpoint", "127.0.0.1:0", "--amqp-endpoint", "127.0.0.1:0")
	cmd.Env = append(os.Environ(), "FABRIC_EMULATOR_DATA=") // in memory, whatever the caller's environment
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	exited := make(chan error, 1)
	ready := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		if sc.Scan() {
			ready <- sc.Text()
		}
		_, _ = io.Copy(io.Discard, stdout)
		exited <- cmd.Wait()
	}()
	stopped := false
	defer func() {
		if !stopped {
			_ = cmd.Process.Kill()
			<-exited
		}
	}()
	select {
	case line := <-ready:
		if !strings.Contains(line, "ready at http://"+addr) {
			b.Fatalf("first stdout line %q does not announce http://%s", line, addr)
		}
		b.Logf("%s", line)
	case err := <-exited:
		stopped = true
		b.Fatalf("fabric-emulator exited before its ready line: %v: %s", err, stderr.Bytes())
	case <-time.After(30 * time.Second):
		b.Fatalf("no ready line within 30 s: %s", stderr.Bytes())
	}

	time.Sleep(2 * time.Second)
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", cmd.Process.Pid))
	if err != nil {
		b.Fatal(err)
	}
	rss, hwm := procKB(b, status, "VmRSS:"), procKB(b, status, "VmHWM:")
	rssMB, hwmMB := float64(rss)/1024, float64(hwm)/1024

	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		b.Fatal(err)
	}
	select {
	case err := <-exited:
		stopped = true
		if err != nil {
			b.Fatalf("fabric-emulator after SIGTERM: %v (want exit status 0): %s", err, stderr.Bytes())
		}
	case <-time.After(10 * time.Second):
		b.Fatalf("fabric-emulator still running 10 s after SIGTERM")
	}

	for b.Loop() {
		// The measurement above runs once; the loop only satisfies the harness.
	}
	b.ReportMetric(rssMB, "idle-RSS-MB")
	b.ReportMetric(hwmMB, "peak-RSS-MB")
	verdict := "met"
	if rssMB >= benchTargetIdleRSSMB {
		verdict = "MISSED"
	}
	line := fmt.Sprintf("idle RSS: %.1f MB (VmHWM %.1f MB) after 2 s idle (target < %.0f MB: %s); SIGTERM exit 0",
		rssMB, hwmMB, benchTargetIdleRSSMB, verdict)
	b.Log(line)
}

// procKB reads a "Name:   123 kB" field of /proc/PID/status.
func procKB(b *testing.B, status []byte, field string) int64 {
	for _, l := range strings.Split(string(status), "\n") {
		if rest, ok := strings.CutPrefix(l, field); ok {
			n, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			if err != nil {
				b.Fatalf("%s %q: %v", field, rest, err)
			}
			return n
		}
	}
	b.Fatalf("no %s in /proc status", field)
	return 0
}
