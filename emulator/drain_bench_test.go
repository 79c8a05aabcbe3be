package emulator_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/fabrictest/fabrictest/emulator/delta"
	"github.com/fabrictest/fabrictest/fabrictest"
	"github.com/parquet-go/parquet-go"
	"github.com/twmb/franz-go/pkg/kgo"
)

// BenchmarkDrainToDelta measures the Lakehouse drain: 1,000,000 small events
// already in the topic (produced with raw franz-go while the destination is
// paused) to committed Delta rows, timed from the destination's resume
// (startType WhenLastStopped) to the last row delivered, beside writing
// the same rows straight to one Parquet file with parquet-go in the same
// run. It reports rows/s for both, the ratio, and the process's peak RSS
// (which includes the embedded broker holding the events), and the CPU
// time the process spent while it drained (the status polls included),
// which load on the machine changes less than the rate.
func BenchmarkDrainToDelta(b *testing.B) {
	const n = 1_000_000
	for range b.N {
		e := startEnv(b)
		s := newStream(e)
		l := bindLakehouse(b, s, "bench")
		cl, err := kgo.NewClient(kgo.SeedBrokers(e.srv.KafkaBootstrap()...), kgo.DefaultProduceTopic(s.id+"."+s.ds), kgo.ProducerLinger(5*time.Millisecond))
		if err != nil {
			b.Fatal(err)
		}
		type small struct {
			Device string  `parquet:"device"`
			Seq    int64   `parquet:"seq"`
			Temp   float64 `parquet:"temp"`
		}
		status := "/v1/workspaces/" + s.ws + "/eventstreams/" + s.id + "/destinations/" + l.dest
		e.must(200, e.call("POST", status+"/pause", nil))
		// In runs of 10,000, so the test's own producer does not hold a
		// million records at once.
		for i := 0; i < n; i += 10_000 {
			batch := make([]*kgo.Record, 10_000)
			for j := range batch {
				batch[j] = &kgo.Record{Value: fmt.Appendf(nil, `{"device":"d%d","seq":%d,"temp":%d.5}`, (i+j)%100, i+j, (i+j)%40)}
			}
			if err := cl.ProduceSync(context.Background(), batch...).FirstErr(); err != nil {
				b.Fatal(err)
			}
		}
		start, cpu := time.Now(), processCPU()
		e.must(200, e.call("POST", status+"/resume", map[string]any{"startType": "WhenLastStopped"}))
		for {
			d := e.must(200, e.call("GET", status, nil))
			if decodeAs[fabrictest.Destination](b, d).Delivery.Delivered >= n {
				break
			}
			time.Sleep(50 * time.Millisecond)
		}
		drain, drainCPU := time.Since(start), processCPU()-cpu
		var ru syscall.Rusage
		_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
		if got, err := readVersionRows(l.dir); err != nil || got != n {
			b.Fatalf("table has %d rows (%v), want %d", got, err, n)
		}
		cl.Close()

		pstart := time.Now()
		f, _ := os.Create(filepath.Join(b.TempDir(), "direct.parquet"))
		w := parquet.NewGenericWriter[small](f)
		batch := make([]small, 0, 10_000)
		for i := range n {
			batch = append(batch, small{Device: fmt.Sprintf("d%d", i%100), Seq: int64(i), Temp: float64(i%40) + 0.5})
			if len(batch) == cap(batch) {
				w.Write(batch)
				batch = batch[:0]
			}
		}
		w.Close()
		f.Close()
		direct := time.Since(pstart)

		drainRate, directRate := float64(n)/drain.Seconds(), float64(n)/direct.Seconds()
		b.ReportMetric(drainRate, "rows/s")
		b.ReportMetric(float64(ru.Maxrss)/1024, "peak-RSS-MB")
		b.ReportMetric(drainCPU.Seconds(), "drain-CPU-s")
		fmt.Printf("drain: %d events topic→Delta in %s = %.0f rows/s (%.2f s of CPU); parquet-go direct %.0f rows/s; ratio %.1f%%; peak RSS %.0f MB (targets ≥750000 rows/s, <256 MB)\n",
			n, drain.Round(time.Millisecond), drainRate, drainCPU.Seconds(), directRate, 100*drainRate/directRate, float64(ru.Maxrss)/1024)
		e.srv.Close()
	}
}

// readVersionRows sums the rows of the table's live files as the log
// records them (from its checkpoint on), without reading data.
func readVersionRows(dir string) (int64, error) {
	state, _, err := delta.ReadState(dir)
	if err != nil {
		return 0, err
	}
	var total int64
	for _, f := range state.Files {
		total += f.NumRecords
	}
	return total, nil
}
