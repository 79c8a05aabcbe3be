package delta_test

import (
	"context"
	"fmt"
	"syscall"
	"testing"
	"time"

	"github.com/fabrictest/fabrictest/emulator/delta"
	"github.com/fabrictest/fabrictest/emulator/rows"
)

// BenchmarkAppendValues appends batches of 10,000 record values shaped like
// the drain benchmark's events (a string, a long, a double) to a table
// that has their columns, WithValues and WithoutFsync: the Delta writer's
// share of a Lakehouse drain. Run with -cpu 1 for the cost of one core;
// cpu-ns/row is the process's CPU time (user and system) per row, which
// other work on a busy machine inflates less than ns/row.
func BenchmarkAppendValues(b *testing.B) {
	const batch = 10_000
	values := make([][]byte, batch)
	for i := range values {
		values[i] = fmt.Appendf(nil, `{"device":"d%d","seq":%d,"temp":%d.5}`, i%100, i, i%40)
	}
	tbl, err := delta.Open(b.TempDir(), delta.WithoutFsync(), delta.WithSchemaMode(delta.SchemaEnforce))
	if err != nil {
		b.Fatal(err)
	}
	if _, err := tbl.Append(context.Background(), []rows.Row{rows.FromValue(values[0])}); err != nil {
		b.Fatal(err)
	}
	empty := make([]rows.Row, batch)
	b.ReportAllocs()
	cpu0 := processCPU()
	b.ResetTimer()
	for range b.N {
		if _, err := tbl.AppendReport(context.Background(), empty, delta.WithValues(values)); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*batch), "ns/row")
	b.ReportMetric(float64((processCPU()-cpu0).Nanoseconds())/float64(b.N*batch), "cpu-ns/row")
}

// processCPU is the CPU time (user and system) the process has used.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
