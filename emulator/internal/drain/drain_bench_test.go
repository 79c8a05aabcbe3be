package drain

import (
	"context"
	"fmt"
	"runtime"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
)

// countSink counts what it is given, touching every value as a writer
// would, and resumes every partition from its start.
type countSink struct {
	n     atomic.Int64
	bytes atomic.Int64
}

func (s *countSink) Resume(_ context.Context, parts []int32) (map[int32]int64, error) {
	out := map[int32]int64{}
	for _, p := range parts {
		out[p] = -1 // nothing written: start at the beginning
	}
	return out, nil
}

func (s *countSink) Write(_ context.Context, b Batch) error {
	var size int
	for _, r := range b.Records {
		size += len(r.Value)
	}
	s.bytes.Add(int64(size))
	s.n.Add(int64(len(b.Records)))
	return nil
}

// BenchmarkDrainDelivers measures the drain's own cost: 300,000 small JSON
// events, produced with franz-go's defaults (snappy batches) into three
// partitions of an in-process cluster, delivered from the start to a sink
// that only counts them; it reports records/s and the process's CPU per
// million records and the bytes allocated per million records (the
// cluster's answers to the fetches included in both).
func BenchmarkDrainDelivers(b *testing.B) {
	const n = 300_000
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(3, "t"))
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	seeds := c.ListenAddrs()
	cl, err := kgo.NewClient(kgo.SeedBrokers(seeds...), kgo.DefaultProduceTopic("t"), kgo.ProducerLinger(5*time.Millisecond))
	if err != nil {
		b.Fatal(err)
	}
	for i := 0; i < n; i += 10_000 {
		batch := make([]*kgo.Record, 10_000)
		for j := range batch {
			batch[j] = &kgo.Record{Value: fmt.Appendf(nil, `{"device":"d%d","seq":%d,"temp":%d.5}`, (i+j)%100, i+j, (i+j)%40)}
		}
		if err := cl.ProduceSync(context.Background(), batch...).FirstErr(); err != nil {
			b.Fatal(err)
		}
	}
	cl.Close()
	var cpu, took time.Duration
	var allocs uint64
	var ms runtime.MemStats
	b.ResetTimer()
	for i := range b.N {
		sink := &countSink{}
		runtime.ReadMemStats(&ms)
		alloc0 := ms.TotalAlloc
		began, cpu0 := time.Now(), processCPU()
		d, err := Start(context.Background(), Config{Seeds: seeds, Topic: "t", Group: fmt.Sprint("bench-", i), Sink: sink})
		if err != nil {
			b.Fatal(err)
		}
		for sink.n.Load() < n {
			time.Sleep(5 * time.Millisecond)
		}
		took += time.Since(began)
		cpu += processCPU() - cpu0
		runtime.ReadMemStats(&ms)
		allocs += ms.TotalAlloc - alloc0
		d.Close()
	}
	b.ReportMetric(float64(n*b.N)/took.Seconds(), "records/s")
	b.ReportMetric(cpu.Seconds()/float64(b.N)*1e6/n, "CPU-s/M")
	b.ReportMetric(float64(allocs)/float64(b.N)*1e6/n/(1<<20), "alloc-MB/M")
}

// processCPU is the CPU time the process has used, user and system.
func processCPU() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
