package delta_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/fabrictest/fabrictest/emulator/delta"
)

// writeRawLog writes the JSON commits 0..last of a table of one-row files
// straight to disk (no data files: Open and Append never read them), the
// fast way to a long log.
func writeRawLog(b *testing.B, dir string, last int) {
	logDir := filepath.Join(dir, "_delta_log")
	if err := os.MkdirAll(logDir, 0o755); err != nil {
		b.Fatal(err)
	}
	schema := strconv.Quote(`{"type":"struct","fields":[{"name":"n","type":"long","nullable":true,"metadata":{}},{"name":"s","type":"string","nullable":true,"metadata":{}}]}`)
	for v := 0; v <= last; v++ {
		body := fmt.Sprintf(`{"commitInfo":{"timestamp":%d,"operation":"WRITE","operationParameters":{"mode":"Append","partitionBy":"[]"}}}`+"\n", 1714521600000+v)
		if v == 0 {
			body += `{"protocol":{"minReaderVersion":1,"minWriterVersion":2}}` + "\n" +
				`{"metaData":{"id":"6c8f3c1e-0000-4000-8000-000000000000","format":{"provider":"parquet","options":{}},"schemaString":` + schema + `,"partitionColumns":[],"configuration":{},"createdTime":1714521600000}}` + "\n"
		}
		body += fmt.Sprintf(`{"txn":{"appId":"bench","version":%d}}`+"\n", v)
		body += fmt.Sprintf(`{"add":{"path":"part-%05d.snappy.parquet","partitionValues":{},"size":700,"modificationTime":1714521600000,"dataChange":true,"stats":"{\"numRecords\":1}"}}`+"\n", v)
		if err := os.WriteFile(filepath.Join(logDir, fmt.Sprintf("%020d.json", v)), []byte(body), 0o644); err != nil {
			b.Fatal(err)
		}
	}
}

// grownTable builds a table at version base (one file per version), whose
// last commit was written by Append and so carries a checkpoint. It
// returns the CPU time of opening the table before that checkpoint, when
// the writer replayed every JSON commit (as it did before checkpoints).
func grownTable(b *testing.B, dir string, base int) (openNoCheckpoint time.Duration) {
	writeRawLog(b, dir, base-1)
	c0 := cpuTime()
	tbl, err := delta.Open(dir, delta.WithoutFsync())
	if err != nil {
		b.Fatal(err)
	}
	openNoCheckpoint = cpuTime() - c0
	if _, err := tbl.Append(context.Background(), jsonRows(b, `{"n": 1, "s": "x"}`), delta.Txn{AppID: "bench", Version: int64(base)}); err != nil {
		b.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "_delta_log", fmt.Sprintf("%020d.checkpoint.parquet", base))); err != nil {
		b.Fatalf("no checkpoint at version %d: %v", base, err)
	}
	return openNoCheckpoint
}

// logCost is what one operation costs on a table, in process CPU time
// (user and system, all goroutines: the figure the 2-core machine's other
// load disturbs least), and the wall time of an append.
type logCost struct{ open, append, state, appendWall time.Duration }

// cpuTime is the process's CPU time so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// measureOpen opens the table with delta.Open, then reads it with
// delta.ReadState, each for half a second of CPU time or more, and returns
// the mean CPU cost of each. The two are timed apart, after a collection
// each: timed in turns, Open was charged the garbage collection of the
// 10,000 files ReadState lists.
func measureOpen(b *testing.B, dir string, base int64) (open, state time.Duration) {
	open = meanCPU(b, func() {
		if tbl, err := delta.Open(dir, delta.WithoutFsync()); err != nil || tbl.Version() != base {
			b.Fatalf("open at %d: %v", base, err)
		}
	})
	state = meanCPU(b, func() {
		if s, _, err := delta.ReadState(dir); err != nil || s.Version != base {
			b.Fatalf("ReadState at %d: %v", base, err)
		}
	})
	return open, state
}

// meanCPU runs op, after a garbage collection, until it has taken half a
// second of CPU time and run 5 times, and returns its mean CPU time.
func meanCPU(b *testing.B, op func()) time.Duration {
	runtime.GC()
	start, c0 := time.Now(), cpuTime()
	n := 0
	for ; cpuTime()-c0 < time.Second/2 || n < 5; n++ {
		op()
		if time.Since(start) > time.Minute {
			b.Fatalf("a minute of wall time for %v of CPU time", cpuTime()-c0)
		}
	}
	return (cpuTime() - c0) / time.Duration(n)
}

// appendsPerRun is how many one-row appends one run times: 30 checkpoint
// intervals, a second or more of work.
const appendsPerRun = 300

// measureAppend opens one writer on the table, as a drain keeps one, makes
// one checkpoint interval of appends untimed (its checkpoint reads the
// files of the one the writer opened from), then times appendsPerRun
// one-row appends, every tenth writing a checkpoint; it returns the mean
// CPU and wall time of one append.
func measureAppend(b *testing.B, dir string, base int64) (cpu, wall time.Duration) {
	tbl, err := delta.Open(dir, delta.WithoutFsync())
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	next := base + 1
	appendOne := func() {
		if _, err := tbl.Append(ctx, jsonRows(b, `{"n": 2, "s": "y"}`), delta.Txn{AppID: "bench", Version: next}); err != nil {
			b.Fatal(err)
		}
		next++
	}
	for range checkpointEvery {
		appendOne()
	}
	t0, c0 := time.Now(), cpuTime()
	for range appendsPerRun {
		appendOne()
	}
	return (cpuTime() - c0) / appendsPerRun, time.Since(t0) / appendsPerRun
}

const checkpointEvery = 10

// BenchmarkCheckpointedLog compares the CPU cost of opening a table for
// writing (delta.Open) and of one append (WithoutFsync, so disk syncs do
// not hide the log's cost; the checkpoint written every 10th commit is
// included) at version 100 and at version 10,000, each table holding one
// data file per version. It also reports delta.ReadState, which lists every
// live file and so grows with them, and, as the baseline, the cost of
// opening each table by replaying its whole JSON log (the only way before
// checkpoints; measured once per run). Issue 19's target: open and append
// within 1.5× at 10,000 of their cost at 100.
func BenchmarkCheckpointedLog(b *testing.B) {
	for i := 0; i < b.N; i++ {
		costs := map[int]logCost{}
		replay := map[int]time.Duration{}
		for _, base := range []int{100, 10_000} {
			dir := filepath.Join(b.TempDir(), "t"+strconv.Itoa(base))
			t0 := time.Now()
			replay[base] = grownTable(b, dir, base)
			setup := time.Since(t0)
			var c logCost
			c.open, c.state = measureOpen(b, dir, int64(base))
			c.append, c.appendWall = measureAppend(b, dir, int64(base))
			costs[base] = c
			b.ReportMetric(setup.Seconds(), fmt.Sprintf("setup-s@%d", base))
		}
		small, large := costs[100], costs[10_000]
		b.ReportMetric(float64(small.append.Microseconds()), "append-us@100")
		b.ReportMetric(float64(large.append.Microseconds()), "append-us@10000")
		b.ReportMetric(float64(large.append)/float64(small.append), "append-10000/100")
		b.ReportMetric(float64(small.appendWall.Microseconds()), "append-wall-us@100")
		b.ReportMetric(float64(large.appendWall.Microseconds()), "append-wall-us@10000")
		b.ReportMetric(float64(small.open.Microseconds()), "open-us@100")
		b.ReportMetric(float64(large.open.Microseconds()), "open-us@10000")
		b.ReportMetric(float64(large.open)/float64(small.open), "open-10000/100")
		b.ReportMetric(float64(replay[100].Microseconds()), "open-replay-us@100")
		b.ReportMetric(float64(replay[10_000].Microseconds()), "open-replay-us@10000")
		b.ReportMetric(float64(replay[10_000])/float64(replay[100]), "open-replay-10000/100")
		b.ReportMetric(float64(small.state.Microseconds()), "readstate-us@100")
		b.ReportMetric(float64(large.state.Microseconds()), "readstate-us@10000")
	}
}
