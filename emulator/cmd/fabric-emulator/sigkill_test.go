package main

import (
	"encoding/json"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fabrictest/fabrictest/emulator/delta"
)

// The SIGKILL loop (issue 13, "What to build" item 6) lives beside main.go
// because what it tests is the binary: the process as an operator runs it,
// on a --data-dir, killed with no chance to flush or close anything.
//
// A producer posts batches to the Custom HTTP source without pause while the
// process is SIGKILLed and restarted sigkillRounds times; the ledger keeps
// which events were acknowledged (200) and which were sent without an
// acknowledgement. At the end, with the last process drained and stopped
// cleanly, the Lakehouse destination's Delta table, read by the Go reader,
// must hold every acknowledged event exactly once and an unacknowledged
// one at most once. Each event is sent once (a failed batch is never
// retried), so a row seen twice can only be the emulator's doing. The test
// then shows it can fail: a copy of the table with one data file committed
// a second time must be refused by the same check.

const (
	sigkillRounds = 5
	batchEvents   = 40
	drainTimeout  = 45 * time.Second
)

// fixture is the workspace, Eventstream and Lakehouse destination.
type fixture struct {
	produce  string // the Custom HTTP source's events route
	flush    string // the destination's flush route
	tableDir string
}

// setUp binds the Lakehouse destination with bind's extra fields (its
// batching, say) beside its type, item and table.
func setUp(t *testing.T, c *client, bind map[string]any) fixture {
	t.Helper()
	ws := c.must(t, 201, "POST", "/v1/workspaces", map[string]any{"displayName": "sigkill"})["id"].(string)
	base := "/v1/workspaces/" + ws
	es := c.must(t, 201, "POST", base+"/eventstreams", map[string]any{"displayName": "sigkill"})
	ds := es["properties"].(map[string]any)["streams"].([]any)[0].(map[string]any)["id"].(string)
	lh := c.must(t, 201, "POST", base+"/lakehouses", map[string]any{"displayName": "sigkill"})
	tables := lh["properties"].(map[string]any)["x-fabrictest-localTablesPath"].(string)
	body := map[string]any{"type": "Lakehouse", "itemId": lh["id"], "table": "events"}
	for k, v := range bind {
		body[k] = v
	}
	d := c.must(t, 201, "POST", base+"/eventstreams/"+es["id"].(string)+"/destinations", body)
	return fixture{
		produce:  base + "/eventstreams/" + es["id"].(string) + "/sources/" + ds + "/events",
		flush:    base + "/eventstreams/" + es["id"].(string) + "/destinations/" + d["id"].(string) + "/flush",
		tableDir: filepath.Join(tables, "events"),
	}
}

// producer posts batches to whichever process is up.
type producer struct {
	mu       sync.Mutex
	c        *client // nil while the process is down
	epoch    int     // restarts so far
	led      *ledger
	perEpoch map[int]int // acknowledged events by epoch
	errs     map[string]int
}

func (p *producer) set(c *client, epoch int) {
	p.mu.Lock()
	p.c, p.epoch = c, epoch
	p.mu.Unlock()
}

func (p *producer) current() (*client, int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.c, p.epoch
}

// run sends batches until stop is closed; each event is sent once.
func (p *producer) run(path string, stop <-chan struct{}) {
	for seq := 0; ; seq++ {
		select {
		case <-stop:
			return
		default:
		}
		c, epoch := p.current()
		if c == nil {
			time.Sleep(10 * time.Millisecond)
			seq--
			continue
		}
		ids, events := batch(seq)
		status, err := c.do("POST", path, map[string]any{"events": events}, nil)
		for _, id := range ids {
			if status == 200 && err == nil {
				p.led.acked[id] = true
			} else {
				p.led.unacked[id] = true
			}
		}
		if status == 200 && err == nil {
			p.perEpoch[epoch] += len(ids)
		} else {
			p.errs[fmt.Sprintf("status %d", status)]++
		}
	}
}

func batch(seq int) ([]string, []any) {
	ids := make([]string, batchEvents)
	events := make([]any, batchEvents)
	for i := range ids {
		ids[i] = fmt.Sprintf("b%06d-%03d", seq, i)
		events[i] = map[string]any{"key": ids[i], "value": map[string]any{"id": ids[i], "seq": seq, "i": i}}
	}
	return ids, events
}

// tableIDs reads the table with the Go reader: the id of every row.
func tableIDs(dir string) ([]string, int64, error) {
	snap, err := delta.ReadTable(dir)
	if err != nil {
		return nil, 0, err
	}
	ids := make([]string, 0, len(snap.Rows))
	for _, r := range snap.Rows {
		id, _ := r["id"].(string)
		ids = append(ids, id)
	}
	return ids, snap.Version, nil
}

// waitDrained polls the table until it holds every acknowledged event.
func waitDrained(t *testing.T, dir string, led *ledger) { waitDrainedFor(t, dir, led, drainTimeout) }

// waitDrainedFor is waitDrained for at most d.
func waitDrainedFor(t *testing.T, dir string, led *ledger, d time.Duration) {
	t.Helper()
	deadline := time.Now().Add(d)
	var missing int
	for time.Now().Before(deadline) {
		ids, _, err := tableIDs(dir)
		if err == nil {
			have := map[string]bool{}
			for _, id := range ids {
				have[id] = true
			}
			missing = 0
			for id := range led.acked {
				if !have[id] {
					missing++
				}
			}
			if missing == 0 {
				return
			}
		}
		time.Sleep(500 * time.Millisecond)
	}
	t.Logf("after %s the table still misses %d acknowledged events; checking what it holds", d, missing)
}

// TestSIGKILLLoop: every acknowledged event exactly once in Delta across
// sigkillRounds SIGKILLs and restarts of the binary.
func TestSIGKILLLoop(t *testing.T) { sigkillLoop(t, nil) }

// TestSIGKILLLoopBatching: the same with a batching destination (issue 15:
// minimumRows 230, so a commit every six produces of 40 events, and
// rows buffered at every kill): buffered rows survive SIGKILL, and a
// commit cut short lands once. The last buffer is flushed at the end.
func TestSIGKILLLoopBatching(t *testing.T) {
	sigkillLoop(t, map[string]any{"minimumRows": 230, "maximumDurationInSeconds": 7200})
}

func sigkillLoop(t *testing.T, bind map[string]any) {
	start := time.Now()
	bin := buildBinary(t)
	dir := t.TempDir()
	data, logPath := filepath.Join(dir, "data"), filepath.Join(dir, "emulator.log")
	p := startProc(t, bin, data, logPath)
	c := newClient(t, p.url)
	fx := setUp(t, c, bind)
	pr := &producer{led: newLedger(), perEpoch: map[int]int{}, errs: map[string]int{}}
	pr.set(c, 0)
	stop, stopped := make(chan struct{}), make(chan struct{})
	var once sync.Once
	halt := func() { once.Do(func() { close(stop) }); <-stopped }
	go func() { pr.run(fx.produce, stop); close(stopped) }()
	t.Cleanup(halt)

	seed := time.Now().UnixNano()
	rng := rand.New(rand.NewSource(seed))
	t.Logf("kill schedule seed %d", seed)
	for round := 1; round <= sigkillRounds; round++ {
		time.Sleep(time.Duration(1200+rng.Intn(1500)) * time.Millisecond)
		pr.set(nil, round)
		p.kill(t)
		p = startProc(t, bin, data, logPath)
		pr.set(newClient(t, p.url), round)
	}
	time.Sleep(2 * time.Second)
	halt()
	t.Logf("produced for %s: %d acknowledged, %d unacknowledged events; acknowledged by process: %v; failures: %v",
		time.Since(start).Round(time.Second), len(pr.led.acked), len(pr.led.unacked), pr.perEpoch, pr.errs)

	if bind != nil { // acknowledged means buffered: commit the last buffer
		c = newClient(t, p.url)
		t.Logf("flush: %v", c.must(t, 200, "POST", fx.flush, nil))
	}
	waitDrained(t, fx.tableDir, pr.led)
	p.stop(t, logPath)
	ids, version, err := tableIDs(fx.tableDir)
	if err != nil {
		t.Fatalf("read the table after the last stop: %v; log:\n%s", err, tail(logPath))
	}
	t.Logf("table version %d holds %d rows (%s in all)", version, len(ids), time.Since(start).Round(time.Second))
	if bad := exactlyOnce(pr.led, ids, 20); len(bad) > 0 {
		t.Fatalf("%d rows, %d acknowledged events:\n%v\nlog:\n%s", len(ids), len(pr.led.acked), bad, tail(logPath))
	}
	tampered := duplicateOneFile(t, fx.tableDir, version)
	dupIDs, _, err := tableIDs(tampered)
	if err != nil {
		t.Fatalf("read the tampered copy: %v", err)
	}
	if bad := exactlyOnce(pr.led, dupIDs, 3); len(bad) == 0 {
		t.Fatalf("a copy of the table with one data file committed twice (%d rows) passes the check", len(dupIDs))
	} else {
		t.Logf("the check refuses a copy with one data file committed twice: %v", bad)
	}
	for round := 0; round <= sigkillRounds; round++ {
		if pr.perEpoch[round] == 0 {
			t.Errorf("process %d (after %d kills) acknowledged no event", round, round)
		}
	}
}

// duplicateOneFile copies the table at dir and, in the copy, commits one of
// its data files a second time under another name: the table then holds
// that file's rows twice, as a writer that replayed a batch would leave it.
// It returns the copy's directory.
func duplicateOneFile(t *testing.T, dir string, version int64) string {
	t.Helper()
	cp := filepath.Join(t.TempDir(), "tampered")
	if err := os.CopyFS(cp, os.DirFS(dir)); err != nil {
		t.Fatalf("copy the table: %v", err)
	}
	logDir := filepath.Join(cp, "_delta_log")
	for v := version; v >= 0; v-- {
		raw, err := os.ReadFile(filepath.Join(logDir, fmt.Sprintf("%020d.json", v)))
		if err != nil {
			t.Fatalf("read commit %d: %v", v, err)
		}
		for _, line := range strings.Split(string(raw), "\n") {
			var act map[string]map[string]any
			if json.Unmarshal([]byte(line), &act) != nil || act["add"] == nil {
				continue
			}
			add := act["add"]
			src := add["path"].(string)
			add["path"] = "dup-" + filepath.Base(src)
			data, err := os.ReadFile(filepath.Join(cp, filepath.FromSlash(src)))
			if err != nil {
				t.Fatalf("read data file: %v", err)
			}
			if err := os.WriteFile(filepath.Join(cp, add["path"].(string)), data, 0o600); err != nil {
				t.Fatal(err)
			}
			commit, _ := json.Marshal(act)
			if err := os.WriteFile(filepath.Join(logDir, fmt.Sprintf("%020d.json", version+1)), append(commit, '\n'), 0o600); err != nil {
				t.Fatal(err)
			}
			return cp
		}
	}
	t.Fatal("no add action in the table's log")
	return ""
}
