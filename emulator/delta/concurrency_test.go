package delta_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"sync"
	"testing"

	"github.com/fabrictest/fabrictest/emulator/delta"
	"github.com/fabrictest/fabrictest/emulator/rows"
)

// checkContiguous fails unless the commits are versions 0..n-1.
func checkContiguous(t testing.TB, snap *delta.Snapshot, n int) {
	t.Helper()
	if len(snap.Commits) != n || snap.Version != int64(n-1) {
		t.Fatalf("%d commits, latest version %d; want %d commits", len(snap.Commits), snap.Version, n)
	}
	for i, c := range snap.Commits {
		if c.Version != int64(i) {
			t.Fatalf("commit %d has version %d", i, c.Version)
		}
	}
}

func TestFiftyGoroutinesAppendToOneTable(t *testing.T) {
	dir := tableDir(t)
	tbl := mustOpen(t, dir, delta.WithoutFsync())
	const writers = 50
	var wg sync.WaitGroup
	versions := make([]int64, writers)
	errs := make([]error, writers)
	for w := 0; w < writers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			batch := make([]rows.Row, w+1) // writer w appends w+1 rows
			for i := range batch {
				batch[i] = rows.Row{"writer": int64(w), "i": int64(i)}
			}
			versions[w], errs[w] = tbl.Append(context.Background(), batch, delta.Txn{AppID: fmt.Sprint("w", w), Version: 1})
		}()
	}
	wg.Wait()
	for w, err := range errs {
		if err != nil {
			t.Fatalf("writer %d: %v", w, err)
		}
	}
	sorted := append([]int64(nil), versions...)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i] < sorted[j] })
	for i, v := range sorted {
		if v != int64(i) {
			t.Fatalf("versions returned %v are not 0..%d", sorted, writers-1)
		}
	}
	snap := checkTable(t, dir)
	checkContiguous(t, snap, writers)
	if want := writers * (writers + 1) / 2; len(snap.Rows) != want {
		t.Fatalf("%d rows, want %d", len(snap.Rows), want)
	}
	for w, v := range versions {
		c := snap.Commits[v]
		if c.AddedRows != int64(w+1) || len(c.Txns) != 1 || c.Txns[0].AppID != fmt.Sprint("w", w) {
			t.Errorf("writer %d: commit %d = %+v", w, v, c)
		}
	}
}

func TestSeparateWritersRaceThroughPutIfAbsent(t *testing.T) {
	dir := tableDir(t)
	const (
		tables  = 4
		appends = 5
	)
	var wg sync.WaitGroup
	errs := make(chan error, tables*appends)
	for w := 0; w < tables; w++ {
		tbl := mustOpen(t, dir, delta.WithoutFsync(), delta.WithMaxCommitAttempts(1000))
		for a := 0; a < appends; a++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				batch := []rows.Row{{"table": int64(w), "append": int64(a)}, {"table": int64(w), "append": int64(a), "extra": "x"}}
				_, err := tbl.Append(context.Background(), batch)
				errs <- err
			}()
		}
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	snap := checkTable(t, dir)
	checkContiguous(t, snap, tables*appends)
	if len(snap.Rows) != tables*appends*2 {
		t.Fatalf("%d rows, want %d", len(snap.Rows), tables*appends*2)
	}
	if files := dataFiles(t, dir); len(files) != len(snap.Files) {
		t.Errorf("%d data files on disk, %d in the table: losers left orphans", len(files), len(snap.Files))
	}
}

func TestStaleWriterRetriesAtTheNextVersion(t *testing.T) {
	dir := tableDir(t)
	a := mustOpen(t, dir)
	b := mustOpen(t, dir) // both see no table
	mustAppend(t, a, jsonRows(t, `{"x":1}`))
	// b's first try at version 0 loses; it re-reads the log and commits
	// version 1, adding its column to a's schema under a's table id.
	if v := mustAppend(t, b, jsonRows(t, `{"x":2,"y":"b"}`)); v != 1 {
		t.Fatalf("stale writer committed version %d, want 1", v)
	}
	snap := checkTable(t, dir)
	if snap.Schema.String() != "struct<x:long,y:string>" || len(snap.Rows) != 2 {
		t.Fatalf("schema %s, %d rows", snap.Schema, len(snap.Rows))
	}
	// a is now stale; after re-reading the log it puts a number into b's
	// string column as text.
	if v := mustAppend(t, a, jsonRows(t, `{"y":5,"z":true}`)); v != 2 {
		t.Fatalf("version %d, want 2", v)
	}
	// A stale writer whose batch conflicts with a column another writer
	// added meanwhile fails after re-reading, and leaves no file behind.
	c := mustOpen(t, dir)
	mustAppend(t, b, jsonRows(t, `{"w":1}`)) // b: version 3, column w long
	_, err := c.Append(context.Background(), jsonRows(t, `{"w":"text"}`))
	var ce *delta.SchemaConflictError
	if !errors.As(err, &ce) || ce.Field != "w" {
		t.Fatalf("stale writer with a conflicting column: err = %v", err)
	}
	snap = checkTable(t, dir)
	checkContiguous(t, snap, 4)
	if files := dataFiles(t, dir); len(files) != len(snap.Files) {
		t.Errorf("%d data files on disk, %d in the table", len(files), len(snap.Files))
	}
	ids := map[string]bool{}
	for v := 0; v <= 3; v++ {
		data, err := os.ReadFile(filepath.Join(dir, "_delta_log", fmt.Sprintf("%020d.json", v)))
		if err != nil {
			t.Fatal(err)
		}
		for _, a := range parseActions(t, data) {
			if m, ok := a["metaData"].(map[string]any); ok {
				ids[fmt.Sprint(m["id"])] = true
			}
		}
	}
	if len(ids) != 1 {
		t.Errorf("metaData ids %v: the table id changed", ids)
	}
}

func TestMultiProcessAppends(t *testing.T) {
	dir := tableDir(t)
	const (
		procs   = 3
		batches = 4
		perRow  = 50
	)
	var cmds []*exec.Cmd
	for p := 0; p < procs; p++ {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(),
			childDirEnv+"="+dir,
			childIDEnv+"="+fmt.Sprint(p),
			childBatchesEnv+"="+fmt.Sprint(batches),
			childRowsEnv+"="+fmt.Sprint(perRow),
		)
		out := &lockedBuffer{}
		cmd.Stdout, cmd.Stderr = out, out
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			if t.Failed() {
				t.Logf("child %d output: %s", p, out)
			}
		})
		cmds = append(cmds, cmd)
	}
	for p, cmd := range cmds {
		if err := cmd.Wait(); err != nil {
			t.Fatalf("child %d: %v", p, err)
		}
	}
	snap := checkTable(t, dir)
	checkContiguous(t, snap, procs*batches)
	if len(snap.Rows) != procs*batches*perRow {
		t.Fatalf("%d rows, want %d", len(snap.Rows), procs*batches*perRow)
	}
	for p := 0; p < procs; p++ {
		if v := snap.Txns[fmt.Sprint("writer-", p)]; v != batches-1 {
			t.Errorf("txn of writer-%d = %d, want %d", p, v, batches-1)
		}
	}
}

func TestTxnsMakeReplaysWriteNothing(t *testing.T) {
	dir := tableDir(t)
	tbl := mustOpen(t, dir)
	ctx := context.Background()
	if _, ok, err := tbl.TxnVersion("drain"); ok || err != nil {
		t.Fatalf("TxnVersion on a new table: ok %v err %v", ok, err)
	}
	mustAppend(t, tbl, jsonRows(t, `{"offset":0}`, `{"offset":1}`), delta.Txn{AppID: "drain", Version: 1})

	// The same batch again (a replay after a crash), or an older one.
	for _, v := range []int64{1, 0} {
		ver, err := tbl.Append(ctx, jsonRows(t, `{"offset":0}`, `{"offset":1}`), delta.Txn{AppID: "drain", Version: v})
		if !errors.Is(err, delta.ErrTxnCommitted) || ver != 0 {
			t.Fatalf("replay of version %d: version %d err %v, want ErrTxnCommitted", v, ver, err)
		}
	}
	mustAppend(t, tbl, jsonRows(t, `{"offset":2}`), delta.Txn{AppID: "drain", Version: 2}, delta.Txn{AppID: "other", Version: 7})

	// A restarted writer reads where to resume from the log.
	again := mustOpen(t, dir)
	for app, want := range map[string]int64{"drain": 2, "other": 7} {
		v, ok, err := again.TxnVersion(app)
		if err != nil || !ok || v != want {
			t.Errorf("TxnVersion(%q) = %d %v %v, want %d", app, v, ok, err, want)
		}
	}
	// A txn-only commit (nothing left to write but the offset).
	if v := mustAppend(t, again, nil, delta.Txn{AppID: "drain", Version: 3}); v != 2 {
		t.Errorf("txn-only commit: version %d, want 2", v)
	}
	if _, err := tbl.Append(ctx, jsonRows(t, `{"offset":3}`), delta.Txn{AppID: "drain", Version: 3}); !errors.Is(err, delta.ErrTxnCommitted) {
		t.Errorf("stale table instance replaying version 3: %v, want ErrTxnCommitted", err)
	}
	if _, err := tbl.Append(ctx, nil, delta.Txn{AppID: "a", Version: 1}, delta.Txn{AppID: "a", Version: 2}); err == nil {
		t.Errorf("two txns for one app in one commit were accepted")
	}
	snap := checkTable(t, dir)
	checkContiguous(t, snap, 3)
	if len(snap.Rows) != 3 || snap.Txns["drain"] != 3 || snap.Txns["other"] != 7 {
		t.Errorf("%d rows, txns %v", len(snap.Rows), snap.Txns)
	}
	if c := snap.Commits[2]; c.AddedFiles != 0 || c.AddedRows != 0 || len(c.Txns) != 1 {
		t.Errorf("txn-only commit = %+v", c)
	}
}

func TestStreamingUpdateCommits(t *testing.T) {
	dir := tableDir(t)
	tbl := mustOpen(t, dir, delta.WithStreamingUpdate("query-1"), delta.WithEngineInfo("fabrictest/test"))
	mustAppend(t, tbl, jsonRows(t, `{"a":1}`), delta.Txn{AppID: "dest", Version: 41})
	mustAppend(t, tbl, jsonRows(t, `{"a":2}`))
	snap := checkTable(t, dir)
	for i, want := range []string{"41", "1"} {
		c := snap.Commits[i]
		if c.Operation != "STREAMING UPDATE" || c.EngineInfo != "fabrictest/test" ||
			c.OperationParameters["queryId"] != "query-1" || c.OperationParameters["epochId"] != want ||
			c.OperationParameters["outputMode"] != "Append" {
			t.Errorf("commit %d = %+v", i, c)
		}
	}
}

func TestEmptyBatches(t *testing.T) {
	dir := tableDir(t)
	tbl := mustOpen(t, dir)
	ctx := context.Background()
	if v, err := tbl.Append(ctx, nil); v != -1 || err != nil {
		t.Fatalf("empty append to a new table: %d %v", v, err)
	}
	if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("an empty append created the table directory: %v", err)
	}
	if _, err := tbl.Append(ctx, jsonRows(t, `{}`, `{}`)); !errors.Is(err, delta.ErrNoColumns) {
		t.Fatalf("rows without fields on a new table: %v, want ErrNoColumns", err)
	}
	if _, err := tbl.Append(ctx, nil, delta.Txn{AppID: "x", Version: 1}); !errors.Is(err, delta.ErrNoColumns) {
		t.Fatalf("txn-only append to a new table: %v, want ErrNoColumns", err)
	}
	mustAppend(t, tbl, jsonRows(t, `{"a":1}`))
	if v := mustAppend(t, tbl, jsonRows(t, `{}`)); v != 1 {
		t.Fatalf("an empty object on an existing table: version %d", v)
	}
	if v, err := tbl.Append(ctx, []rows.Row{}); v != 1 || err != nil {
		t.Fatalf("empty append: %d %v", v, err)
	}
	snap := checkTable(t, dir)
	assertRows(t, snap, []map[string]any{{"a": int64(1)}, {"a": nil}})
}

func TestCancelledContextWritesNothing(t *testing.T) {
	dir := tableDir(t)
	tbl := mustOpen(t, dir)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := tbl.Append(ctx, jsonRows(t, `{"a":1}`)); !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("a cancelled append wrote: %v", err)
	}
}
