package delta_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/format"

	"github.com/fabrictest/fabrictest/emulator/delta"
)

// The Delta transaction protocol (delta-io/delta PROTOCOL.md, "Checkpoints"
// and "Last Checkpoint File"): a classic checkpoint is one Parquet file
// <version>.checkpoint.parquet holding the table's state as actions, and
// _delta_log/_last_checkpoint names the latest one; readers start there and
// read only the JSON commits after it. Writers here checkpoint every 10
// commits, the protocol's default delta.checkpointInterval.

// appendN appends n one-row commits, each with a txn of app "drain".
func appendN(t *testing.T, tbl *delta.Table, from, n int) {
	t.Helper()
	for i := from; i < from+n; i++ {
		mustAppend(t, tbl, jsonRows(t, fmt.Sprintf(`{"n": %d, "s": "row %d"}`, i, i)),
			delta.Txn{AppID: "drain", Version: int64(i)})
	}
}

func lastCheckpoint(t *testing.T, dir string) map[string]int64 {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, "_delta_log", "_last_checkpoint"))
	if err != nil {
		t.Fatalf("read _last_checkpoint: %v", err)
	}
	var lc map[string]int64
	if err := json.Unmarshal(data, &lc); err != nil {
		t.Fatalf("parse _last_checkpoint %s: %v", data, err)
	}
	return lc
}

func filePaths(fs []delta.File) []string {
	out := make([]string, len(fs))
	for i, f := range fs {
		out[i] = f.Path
	}
	sort.Strings(out)
	return out
}

func TestCheckpointEveryTenCommits(t *testing.T) {
	dir := tableDir(t)
	tbl := mustOpen(t, dir, delta.WithoutFsync())
	appendN(t, tbl, 0, 25) // versions 0..24
	for _, v := range []int{10, 20} {
		if _, err := os.Stat(filepath.Join(dir, "_delta_log", fmt.Sprintf("%020d.checkpoint.parquet", v))); err != nil {
			t.Errorf("checkpoint of version %d: %v", v, err)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "_delta_log", fmt.Sprintf("%020d.checkpoint.parquet", 0))); err == nil {
		t.Errorf("version 0 has a checkpoint")
	}
	// protocol + metaData + one txn + 21 adds at version 20
	if lc := lastCheckpoint(t, dir); lc["version"] != 20 || lc["size"] != 24 || lc["numOfAddFiles"] != 21 {
		t.Errorf("_last_checkpoint = %v, want version 20, size 24, numOfAddFiles 21", lc)
	}
	full := checkTable(t, dir) // delta-rs reads it from the checkpoint
	state, cp, err := delta.ReadState(dir)
	if err != nil {
		t.Fatalf("ReadState: %v", err)
	}
	if cp != 20 || state.Version != 24 || len(state.Commits) != 4 {
		t.Errorf("ReadState from checkpoint %d: version %d, %d commits read; want 20, 24, 4", cp, state.Version, len(state.Commits))
	}
	if fmt.Sprint(filePaths(state.Files)) != fmt.Sprint(filePaths(full.Files)) ||
		state.Schema.String() != full.Schema.String() || state.TableID != full.TableID ||
		state.Txns["drain"] != 24 {
		t.Errorf("ReadState differs from ReadTable: %d files vs %d, txns %v", len(state.Files), len(full.Files), state.Txns)
	}
}

func TestWriterAndReadersStartFromTheCheckpoint(t *testing.T) {
	dir := tableDir(t)
	tbl := mustOpen(t, dir, delta.WithoutFsync())
	appendN(t, tbl, 0, 23)
	// Without the JSON commits the checkpoint covers, only a reader that
	// starts from the checkpoint can read the table.
	for v := 0; v <= 20; v++ {
		if err := os.Remove(filepath.Join(dir, "_delta_log", fmt.Sprintf("%020d.json", v))); err != nil {
			t.Fatal(err)
		}
	}
	reopened := mustOpen(t, dir, delta.WithoutFsync())
	if reopened.Version() != 22 || len(reopened.Schema().Fields) != 2 {
		t.Fatalf("reopened at version %d with schema %s", reopened.Version(), reopened.Schema())
	}
	if _, err := reopened.Append(t.Context(), jsonRows(t, `{"n": 22, "s": "again"}`), delta.Txn{AppID: "drain", Version: 22}); err == nil {
		t.Fatalf("the txn version the checkpoint recorded was not enforced")
	}
	appendN(t, reopened, 23, 8) // versions 23..30: a checkpoint at 30
	state, cp, err := delta.ReadState(dir)
	if err != nil {
		t.Fatalf("ReadState: %v", err)
	}
	if cp != 30 || state.Version != 30 || len(state.Files) != 31 || state.Txns["drain"] != 30 {
		t.Fatalf("ReadState: checkpoint %d, version %d, %d files, txns %v", cp, state.Version, len(state.Files), state.Txns)
	}
	rs := readWithDeltaRSOpts(t, map[string]any{"path": dir, "apps": []string{"drain"}, "latest_only": true})
	if rs.Version != 30 || rs.CountSQL != 31 || len(rs.Rows) != 31 || len(rs.Adds) != 31 {
		t.Errorf("delta-rs sees version %d, %d rows (COUNT %d), %d adds; want 30, 31, 31", rs.Version, len(rs.Rows), rs.CountSQL, len(rs.Adds))
	}
	if v := rs.Txns["drain"]; v == nil || *v != 30 {
		t.Errorf("delta-rs txn version of drain = %v, want 30", v)
	}
}

// Over many checkpoints, each copies the previous one's add row groups and
// re-encodes only the new adds (merging small trailing row groups): the
// checkpoint stays complete and correct, with few row groups.
func TestIncrementalCheckpointsStayComplete(t *testing.T) {
	dir := tableDir(t)
	tbl := mustOpen(t, dir, delta.WithoutFsync())
	appendN(t, tbl, 0, 45)
	tbl = mustOpen(t, dir, delta.WithoutFsync()) // a writer that read only the head
	appendN(t, tbl, 45, 126)                     // versions 45..170
	if lc := lastCheckpoint(t, dir); lc["version"] != 170 || lc["numOfAddFiles"] != 171 || lc["size"] != 174 {
		t.Errorf("_last_checkpoint = %v, want version 170, 171 adds, size 174", lc)
	}
	if n := checkpointRowGroups(t, dir, 170); n > 9 {
		t.Errorf("checkpoint 170 has %d row groups; want O(log n)", n)
	}
	full := checkTable(t, dir)
	state, cp, err := delta.ReadState(dir)
	if err != nil || cp != 170 {
		t.Fatalf("ReadState: checkpoint %d, %v", cp, err)
	}
	if fmt.Sprint(filePaths(state.Files)) != fmt.Sprint(filePaths(full.Files)) || len(state.Files) != 171 {
		t.Errorf("ReadState has %d files, ReadTable %d", len(state.Files), len(full.Files))
	}
}

// A remove (written here as another writer would, e.g. a compaction)
// makes the next checkpoint a full rewrite without the removed file.
func TestCheckpointAfterARemove(t *testing.T) {
	dir := tableDir(t)
	tbl := mustOpen(t, dir, delta.WithoutFsync())
	appendN(t, tbl, 0, 12) // checkpoint at 10; versions 0..11
	snap, err := delta.ReadTable(dir)
	if err != nil {
		t.Fatal(err)
	}
	gone := snap.Files[3].Path
	remove := fmt.Sprintf(`{"commitInfo":{"timestamp":1714521600000,"operation":"DELETE","operationParameters":{}}}`+"\n"+
		`{"remove":{"path":%q,"deletionTimestamp":1714521600000,"dataChange":true}}`+"\n", gone)
	if err := os.WriteFile(filepath.Join(dir, "_delta_log", fmt.Sprintf("%020d.json", 12)), []byte(remove), 0o644); err != nil {
		t.Fatal(err)
	}
	appendN(t, tbl, 13, 8) // versions 13..20: a checkpoint at 20
	state, cp, err := delta.ReadState(dir)
	if err != nil || cp != 20 {
		t.Fatalf("ReadState: checkpoint %d, %v", cp, err)
	}
	for _, f := range state.Files {
		if f.Path == gone {
			t.Errorf("the checkpoint still adds the removed file %s", gone)
		}
	}
	if len(state.Files) != 19 { // 12 + 8 added, 1 removed
		t.Errorf("ReadState has %d files, want 19", len(state.Files))
	}
	if n := checkpointRowGroups(t, dir, 20); n != 2 {
		t.Errorf("checkpoint 20 has %d row groups, want 2 (head, adds: a full rewrite)", n)
	}
	rs := readWithDeltaRSOpts(t, map[string]any{"path": dir, "apps": []string{"drain"}, "latest_only": true})
	if rs.Version != 20 || rs.CountSQL != 19 || len(rs.Adds) != 19 {
		t.Errorf("delta-rs sees version %d, COUNT %d, %d adds; want 20, 19, 19", rs.Version, rs.CountSQL, len(rs.Adds))
	}
}

func checkpointRowGroups(t *testing.T, dir string, version int) int {
	t.Helper()
	return len(openCheckpointFile(t, dir, version).RowGroups())
}

func openCheckpointFile(t *testing.T, dir string, version int) *parquet.File {
	t.Helper()
	f, err := os.Open(filepath.Join(dir, "_delta_log", fmt.Sprintf("%020d.checkpoint.parquet", version)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	info, _ := f.Stat()
	pf, err := parquet.OpenFile(f, info.Size())
	if err != nil {
		t.Fatal(err)
	}
	return pf
}

// Spark 3.5's vectorized reader for nested columns reads PLAIN strings in
// a checkpoint, not DELTA_LENGTH_BYTE_ARRAY ones (it read
// metaData.schemaString as ""): every string column of every row group,
// the copied ones too, is PLAIN. python/tests/test_delta_sinks.py
// (TestCheckpointedTables) has delta-spark read such a table.
func TestCheckpointStringsArePlain(t *testing.T) {
	dir := tableDir(t)
	appendN(t, mustOpen(t, dir, delta.WithoutFsync()), 0, 21) // checkpoints at 10 and 20
	for _, version := range []int{10, 20} {
		for i, rg := range openCheckpointFile(t, dir, version).Metadata().RowGroups {
			for _, c := range rg.Columns {
				if c.MetaData.Type == format.ByteArray && !slices.Contains(c.MetaData.Encoding, format.Plain) {
					t.Errorf("checkpoint %d row group %d: %s encoded %v", version, i, strings.Join(c.MetaData.PathInSchema, "."), c.MetaData.Encoding)
				}
			}
		}
	}
}
