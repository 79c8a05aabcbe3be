package delta_test

import (
	"bytes"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/fabrictest/fabrictest/emulator/delta"
)

// parseActions parses a commit file: one JSON object per line, each with
// exactly one key, the action name.
func parseActions(t testing.TB, data []byte) []map[string]any {
	t.Helper()
	var out []map[string]any
	for i, line := range bytes.Split(bytes.TrimSuffix(data, []byte("\n")), []byte("\n")) {
		var a map[string]any
		if err := json.Unmarshal(line, &a); err != nil {
			t.Fatalf("line %d: %v: %s", i+1, err, line)
		}
		if len(a) != 1 {
			t.Fatalf("line %d has %d keys: %s", i+1, len(a), line)
		}
		out = append(out, a)
	}
	return out
}

func keys(m map[string]any) string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return strings.Join(ks, ",")
}

func readLogFile(t testing.TB, dir, name string) []map[string]any {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, "_delta_log", name))
	if err != nil {
		t.Fatal(err)
	}
	return parseActions(t, data)
}

func TestCommitFilesHaveTheProtocolShape(t *testing.T) {
	dir := tableDir(t)
	tbl := mustOpen(t, dir)
	mustAppend(t, tbl, jsonRows(t, `{"id":1,"ts":"2024-01-01T00:00:00Z"}`, `{"id":2}`), delta.Txn{AppID: "app", Version: 9})
	mustAppend(t, tbl, jsonRows(t, `{"id":3}`))
	mustAppend(t, tbl, jsonRows(t, `{"id":4,"new":"x"}`))

	v0 := readLogFile(t, dir, "00000000000000000000.json")
	var names []string
	for _, a := range v0 {
		names = append(names, keys(a))
	}
	if got := strings.Join(names, " "); got != "commitInfo protocol metaData txn add" {
		t.Fatalf("version 0 actions: %s", got)
	}
	info := v0[0]["commitInfo"].(map[string]any)
	if keys(info) != "engineInfo,isBlindAppend,isolationLevel,operation,operationMetrics,operationParameters,timestamp,txnId" ||
		info["operation"] != "WRITE" || info["engineInfo"] != "fabrictest" {
		t.Errorf("commitInfo %v", info)
	}
	if p := v0[1]["protocol"].(map[string]any); keys(p) != "minReaderVersion,minWriterVersion" ||
		p["minReaderVersion"] != 1.0 || p["minWriterVersion"] != 2.0 {
		t.Errorf("protocol %v", p)
	}
	meta := v0[2]["metaData"].(map[string]any)
	if keys(meta) != "configuration,createdTime,format,id,partitionColumns,schemaString" {
		t.Errorf("metaData keys %s", keys(meta))
	}
	if f := meta["format"].(map[string]any); f["provider"] != "parquet" || len(meta["partitionColumns"].([]any)) != 0 || len(meta["configuration"].(map[string]any)) != 0 {
		t.Errorf("metaData %v", meta)
	}
	wantSchema := `{"type":"struct","fields":[{"name":"id","type":"long","nullable":true,"metadata":{}},{"name":"ts","type":"timestamp","nullable":true,"metadata":{}}]}`
	if meta["schemaString"] != wantSchema {
		t.Errorf("schemaString %s", meta["schemaString"])
	}
	if txn := v0[3]["txn"].(map[string]any); keys(txn) != "appId,lastUpdated,version" || txn["appId"] != "app" || txn["version"] != 9.0 {
		t.Errorf("txn %v", txn)
	}
	add := v0[4]["add"].(map[string]any)
	if keys(add) != "dataChange,modificationTime,partitionValues,path,size,stats" || add["dataChange"] != true ||
		len(add["partitionValues"].(map[string]any)) != 0 {
		t.Errorf("add %v", add)
	}
	path := add["path"].(string)
	if !strings.HasPrefix(path, "part-00000-") || !strings.HasSuffix(path, "-c000.snappy.parquet") {
		t.Errorf("data file name %s", path)
	}
	info2, err := os.Stat(filepath.Join(dir, path))
	if err != nil || float64(info2.Size()) != add["size"] {
		t.Errorf("add size %v, file %v (%v)", add["size"], info2.Size(), err)
	}
	wantStats := `{"numRecords":2,"minValues":{"id":1,"ts":"2024-01-01T00:00:00.000Z"},"maxValues":{"id":2,"ts":"2024-01-01T00:00:00.000Z"},"nullCount":{"id":0,"ts":1}}`
	if add["stats"] != wantStats {
		t.Errorf("stats\n got  %s\n want %s", add["stats"], wantStats)
	}

	v1 := readLogFile(t, dir, "00000000000000000001.json")
	if len(v1) != 2 || keys(v1[0]) != "commitInfo" || keys(v1[1]) != "add" {
		t.Errorf("version 1 actions %v", v1)
	}
	if rv := v1[0]["commitInfo"].(map[string]any)["readVersion"]; rv != 0.0 {
		t.Errorf("version 1 readVersion %v", rv)
	}
	v2 := readLogFile(t, dir, "00000000000000000002.json")
	if len(v2) != 3 || keys(v2[1]) != "metaData" {
		t.Fatalf("version 2 actions %v", v2)
	}
	meta2 := v2[1]["metaData"].(map[string]any)
	for _, k := range []string{"id", "createdTime", "format"} {
		if !equalJSON(meta2[k], meta[k]) {
			t.Errorf("metaData %s changed from %v to %v", k, meta[k], meta2[k])
		}
	}
	checkTable(t, dir)
}

func equalJSON(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return bytes.Equal(x, y)
}

func TestNothingIsWrittenOutsideTheTable(t *testing.T) {
	parent := t.TempDir()
	dir := filepath.Join(parent, "t")
	a, b := mustOpen(t, dir), mustOpen(t, dir)
	mustAppend(t, a, jsonRows(t, `{"a":1}`))
	mustAppend(t, b, jsonRows(t, `{"a":2,"../escape":"x","/abs":"y"}`)) // loses version 0 once
	_, _ = a.Append(t.Context(), jsonRows(t, `{"a":"conflict"}`))

	entries, err := os.ReadDir(parent)
	if err != nil || len(entries) != 1 || entries[0].Name() != "t" {
		t.Fatalf("parent holds %v (%v), want only the table", entries, err)
	}
	err = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		switch {
		case d.IsDir() && (rel == "." || rel == "_delta_log"):
		case !d.IsDir() && filepath.Dir(rel) == "." && strings.HasSuffix(rel, ".snappy.parquet"):
		case !d.IsDir() && filepath.Dir(rel) == "_delta_log" && len(filepath.Base(rel)) == len("00000000000000000000.json") && strings.HasSuffix(rel, ".json"):
		default:
			t.Errorf("unexpected entry %s", rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	snap := checkTable(t, dir)
	if got := snap.Schema.String(); got != "struct<a:long,../escape:string,/abs:string>" {
		t.Errorf("schema %s", got)
	}
}

func TestOpenRefusesLogsItCannotContinue(t *testing.T) {
	t.Run("no version 0", func(t *testing.T) {
		dir := tableDir(t)
		if err := os.MkdirAll(filepath.Join(dir, "_delta_log"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "_delta_log", "00000000000000000003.json"), []byte("{}\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := delta.Open(dir); err == nil || !strings.Contains(err.Error(), "version 0") {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("protocol beyond (1,2)", func(t *testing.T) {
		dir := tableDir(t)
		mustAppend(t, mustOpen(t, dir), jsonRows(t, `{"a":1}`))
		p := filepath.Join(dir, "_delta_log", "00000000000000000001.json")
		if err := os.WriteFile(p, []byte(`{"protocol":{"minReaderVersion":3,"minWriterVersion":7,"readerFeatures":["columnMapping"],"writerFeatures":["columnMapping"]}}`+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := delta.Open(dir); err == nil || !strings.Contains(err.Error(), "(3,7)") {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("corrupt commit", func(t *testing.T) {
		dir := tableDir(t)
		mustAppend(t, mustOpen(t, dir), jsonRows(t, `{"a":1}`))
		p := filepath.Join(dir, "_delta_log", "00000000000000000001.json")
		if err := os.WriteFile(p, []byte("{not json\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := delta.Open(dir); err == nil || !strings.Contains(err.Error(), "version 1") {
			t.Fatalf("err = %v", err)
		}
		if _, err := delta.ReadTable(dir); err == nil {
			t.Fatal("ReadTable read a corrupt log")
		}
	})
}
