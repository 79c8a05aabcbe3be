package emulator_test

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"runtime/pprof"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/fabrictest/fabrictest/emulator"
	"github.com/fabrictest/fabrictest/emulator/delta"
)

// idleWindow is how long the idle process's CPU time is measured.
const idleWindow = 3 * time.Second

// processCPU is the process's user and system CPU time so far.
func processCPU() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// rssMB is the process's resident set (VmRSS) in MB, after a GC.
func rssMB(tb testing.TB) float64 {
	runtime.GC()
	debug.FreeOSMemory()
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		tb.Fatal(err)
	}
	for _, l := range strings.Split(string(data), "\n") {
		if f := strings.Fields(l); len(f) >= 2 && f[0] == "VmRSS:" {
			kb, _ := strconv.ParseFloat(f[1], 64)
			return kb / 1024
		}
	}
	tb.Fatal("no VmRSS in /proc/self/status")
	return 0
}

// scaleEnv is an emulator with n Eventstreams, each with a Lakehouse
// destination writing its own table.
type scaleEnv struct {
	e       *testEnv
	streams []stream
	tables  []string
}

// newScaleEnv starts the emulator with a workspace and a Lakehouse, and
// returns it with its RSS then, and a function that adds the n
// Eventstreams.
func newScaleEnv(b *testing.B, n, partitions int) (s *scaleEnv, baseMB float64, add func()) {
	e := startEnv(b, emulator.WithPartitions(partitions))
	ws := e.workspace("scale")
	lh := e.must(201, e.call("POST", "/v1/workspaces/"+ws+"/lakehouses", map[string]any{"displayName": "lh"}))
	dir := lh.Body["properties"].(map[string]any)["x-fabrictest-localTablesPath"].(string)
	s = &scaleEnv{e: e}
	return s, rssMB(b), func() { s.add(ws, lh.str("id"), dir, n) }
}

func (s *scaleEnv) add(ws, lakehouse, dir string, n int) {
	e := s.e
	for i := range n {
		id, ds := e.eventstream(ws, fmt.Sprint("es", i))
		s.streams = append(s.streams, stream{e: e, ws: ws, id: id, ds: ds,
			produce: "/v1/workspaces/" + ws + "/eventstreams/" + id + "/sources/" + ds + "/events"})
		e.must(201, e.call("POST", "/v1/workspaces/"+ws+"/eventstreams/"+id+"/destinations",
			map[string]any{"type": "Lakehouse", "itemId": lakehouse, "table": fmt.Sprint("t", i)}))
		s.tables = append(s.tables, filepath.Join(dir, fmt.Sprint("t", i)))
	}
}

// profileCPU starts a CPU profile into the file the environment variable
// env names (nothing when it is unset) and returns what stops it.
func profileCPU(b *testing.B, env string) (stop func()) {
	path := os.Getenv(env)
	if path == "" {
		return func() {}
	}
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		b.Fatal(err)
	}
	return func() {
		pprof.StopCPUProfile()
		f.Close()
	}
}

// idleCPU is the process's CPU time over idleWindow as a share of one
// core, in percent. With FABRICTEST_IDLE_PROFILE set to a path, the window
// is also CPU-profiled there (the last sub-benchmark's profile stays).
func idleCPU(b *testing.B) float64 {
	defer profileCPU(b, "FABRICTEST_IDLE_PROFILE")()
	c0, t0 := processCPU(), time.Now()
	time.Sleep(idleWindow)
	return 100 * float64(processCPU()-c0) / float64(time.Since(t0))
}

// deliverOne produces one event to every Eventstream and waits until every
// table has it; it returns the time that took. With
// FABRICTEST_DELIVER_PROFILE set to a path, that time is CPU-profiled there.
func (s *scaleEnv) deliverOne(b *testing.B) time.Duration {
	defer profileCPU(b, "FABRICTEST_DELIVER_PROFILE")()
	start := time.Now()
	for _, st := range s.streams {
		s.e.must(200, s.e.call("POST", st.produce, `{"events":[{"value":{"n":1}}]}`))
	}
	for i, dir := range s.tables {
		for {
			snap, _, err := delta.ReadState(dir)
			if err == nil && len(snap.Files) > 0 {
				break
			}
			if time.Since(start) > 5*time.Minute {
				b.Fatalf("table t%d has no row after 5 minutes (%v)", i, err)
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
	return time.Since(start)
}

// BenchmarkIdleEventstreams builds 1, 10, 100 and 500 Eventstreams, each
// with a Lakehouse destination, in-process on the embedded broker, at 4
// and 32 partitions; it reports the process's RSS and CPU while idle
// (total and per Eventstream: drains must not burn CPU on idle topics),
// then the time to deliver one event to every table. Issue 19's target:
// 500 idle Eventstreams under 5% of one core.
func BenchmarkIdleEventstreams(b *testing.B) {
	for _, partitions := range []int{4, 32} {
		for _, n := range []int{1, 10, 100, 500} {
			b.Run(fmt.Sprintf("n=%d/partitions=%d", n, partitions), func(b *testing.B) {
				for range b.N {
					s, base, add := newScaleEnv(b, n, partitions)
					t0 := time.Now()
					add()
					setup := time.Since(t0)
					time.Sleep(time.Second) // let the drains settle into waiting
					rss := rssMB(b)
					cpu := idleCPU(b)
					deliver := s.deliverOne(b)
					b.ReportMetric(setup.Seconds(), "setup-s")
					b.ReportMetric(rss, "idle-RSS-MB")
					b.ReportMetric(1024*(rss-base)/float64(n), "RSS-KB/eventstream")
					b.ReportMetric(cpu, "idle-CPU-%")
					b.ReportMetric(cpu/float64(n), "idle-CPU-%/eventstream")
					b.ReportMetric(float64(deliver.Milliseconds()), "deliver-all-ms")
					b.ReportMetric(float64(deliver.Microseconds())/1000/float64(n), "deliver-ms/eventstream")
				}
			})
		}
	}
}
