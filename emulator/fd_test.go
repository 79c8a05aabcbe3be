package emulator_test

import (
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/fabrictest/fabrictest/emulator/delta"
)

// fdLimit is the RLIMIT_NOFILE the many-destinations test runs under.
const fdLimit = 4096

// manyDestinations is how many destinations TestManyDestinationsUnderFDLimit
// binds: FABRICTEST_DESTINATIONS, else 2,000 (200 under -race or -short,
// where 2,000 takes minutes; make test runs the 2,000 without -race).
func manyDestinations(t *testing.T) int {
	n := 2000
	if raceEnabled || testing.Short() {
		n = 200
	}
	if s := os.Getenv("FABRICTEST_DESTINATIONS"); s != "" {
		v, err := strconv.Atoi(s)
		if err != nil || v < 1 {
			t.Fatalf("FABRICTEST_DESTINATIONS=%q: want a positive count", s)
		}
		n = v
	}
	return n
}

func openFDs(t *testing.T) int {
	t.Helper()
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatal(err)
	}
	return len(ents)
}

// TestManyDestinationsUnderFDLimit binds 2,000 Lakehouse destinations (20
// Eventstreams of 100; see manyDestinations) in a process limited to 4,096 file descriptors,
// produces one event to each Eventstream and finds it in every table: the
// drains share their Kafka connections, so descriptors do not grow with
// the destinations. It re-runs itself in a child process so that the
// limit holds for nothing else.
func TestManyDestinationsUnderFDLimit(t *testing.T) {
	if os.Getenv("FABRICTEST_FD_CHILD") == "" {
		args := []string{"-test.run=^TestManyDestinationsUnderFDLimit$", "-test.v", "-test.count=1", fmt.Sprint("-test.short=", testing.Short())}
		cmd := exec.Command(os.Args[0], args...)
		cmd.Env = append(os.Environ(), "FABRICTEST_FD_CHILD=1")
		out, err := cmd.CombinedOutput()
		t.Logf("child:\n%s", out)
		if err != nil {
			t.Fatalf("child failed: %v", err)
		}
		return
	}
	if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &syscall.Rlimit{Cur: fdLimit, Max: fdLimit}); err != nil {
		t.Fatalf("set RLIMIT_NOFILE: %v", err)
	}
	n := manyDestinations(t)
	const perStream = 100
	e := startEnv(t)
	ws := e.workspace("many")
	lh := e.must(201, e.call("POST", "/v1/workspaces/"+ws+"/lakehouses", map[string]any{"displayName": "lh"}))
	tables := lh.Body["properties"].(map[string]any)["x-fabrictest-localTablesPath"].(string)
	before := openFDs(t)
	start := time.Now()
	var streams []stream
	for i := 0; i < n; i++ {
		if i%perStream == 0 {
			id, ds := e.eventstream(ws, fmt.Sprint("es", i/perStream))
			streams = append(streams, stream{e: e, ws: ws, id: id, ds: ds,
				produce: "/v1/workspaces/" + ws + "/eventstreams/" + id + "/sources/" + ds + "/events"})
		}
		s := streams[len(streams)-1]
		e.must(201, e.call("POST", "/v1/workspaces/"+ws+"/eventstreams/"+s.id+"/destinations",
			map[string]any{"type": "Lakehouse", "itemId": lh.str("id"), "table": fmt.Sprint("t", i)}))
	}
	bound := openFDs(t)
	t.Logf("%d destinations bound in %s; open descriptors %d before, %d after", n, time.Since(start).Round(time.Millisecond), before, bound)
	if bound-before > 200 {
		t.Fatalf("binding %d destinations opened %d descriptors; want them to share Kafka connections", n, bound-before)
	}
	for _, s := range streams {
		e.must(200, e.call("POST", s.produce, `{"events":[{"value":{"n":1}}]}`))
	}
	for i := 0; i < n; i++ {
		snap, err := delta.ReadTable(fmt.Sprintf("%s/t%d", tables, i))
		if err != nil || len(snap.Rows) != 1 {
			t.Fatalf("table t%d: %v rows, err %v; want the event", i, snapRows(snap), err)
		}
	}
	t.Logf("the event reached all %d tables in %s; open descriptors %d (limit %d)", n, time.Since(start).Round(time.Millisecond), openFDs(t), fdLimit)
}

func snapRows(s *delta.Snapshot) int {
	if s == nil {
		return 0
	}
	return len(s.Rows)
}
