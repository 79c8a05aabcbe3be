package portal_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/fabrictest/fabrictest/emulator/delta"
)

// tableDir is the fixture's orders table's directory, as the API locates it.
func (f *fixture) tableDir(t *testing.T) string {
	t.Helper()
	tables := f.api(f.token, "GET", "/v1/workspaces/"+f.ws+"/lakehouses/"+f.lh+"/tables", nil, 200)
	return tables["data"].([]any)[0].(map[string]any)["location"].(string)
}

// TestTablePageIsPagedAndReadsOnlyItsFiles: 60 rows in two commits show
// as two pages of 50 and 10 (doubles keep their decimal point); damaging
// the second commit's file leaves the first page whole, and the second
// page says what is wrong. Rejected rows name their destination.
func TestTablePageIsPagedAndReadsOnlyItsFiles(t *testing.T) {
	f := deploy(t)
	var evs []map[string]any
	for i := range 50 {
		evs = append(evs, map[string]any{"value": map[string]any{"amount": 12.5, "n": i}})
	}
	f.produce(evs...)
	f.waitRows(50)
	evs = nil
	for i := range 10 {
		evs = append(evs, map[string]any{"value": map[string]any{"amount": 15.0, "n": 50 + i}})
	}
	f.produce(evs...)
	f.produce(map[string]any{"value": "just text"})
	f.waitRows(60)

	rows := regexp.MustCompile(`<tr><td>`)
	status, body := getPage(t, f.tablePage(), "")
	if status != 200 || !strings.Contains(body, "Rows 1–50 of 60") || !strings.Contains(body, `rel="next"`) {
		t.Fatalf("page 1: %d: %s", status, body)
	}
	_, body2 := getPage(t, f.tablePage()+"?page=2", "")
	if !strings.Contains(body2, "Rows 51–60 of 60") || !strings.Contains(body2, "<td>15.0</td>") || strings.Contains(body2, `rel="next"`) {
		t.Fatalf("page 2: %s", body2)
	}
	if n := len(rows.FindAllString(body2, -1)); n < 10 {
		t.Fatalf("page 2 shows %d rows", n)
	}
	rej := body[strings.Index(body, "rejected-h"):]
	if !strings.Contains(rej, "<td>lake</td>") || strings.Contains(rej, f.lake) {
		t.Fatalf("the rejected row does not name its destination: %s", rej)
	}

	dir := f.tableDir(t)
	snap, _, err := delta.ReadState(dir)
	if err != nil {
		t.Fatal(err)
	}
	last := snap.Files[len(snap.Files)-1]
	if last.NumRecords != 10 {
		t.Fatalf("the last file holds %d rows, want the second commit's 10", last.NumRecords)
	}
	if err := os.WriteFile(filepath.Join(dir, filepath.FromSlash(last.Path)), []byte("damaged"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, body := getPage(t, f.tablePage(), ""); !strings.Contains(body, "Rows 1–50 of 60") {
		t.Fatalf("page 1 read the damaged file of page 2: %s", body)
	}
	if _, body := getPage(t, f.tablePage()+"?page=2", ""); !strings.Contains(body, last.Path) || !strings.Contains(body, `role="alert"`) {
		t.Fatalf("page 2 does not say its file is damaged: %s", body)
	}
}

// TestLakehousePageListsBrokenTables: a table whose directory became a
// file, and a directory without a Delta log, are listed with what is
// wrong.
func TestLakehousePageListsBrokenTables(t *testing.T) {
	f := deploy(t)
	f.produce(map[string]any{"value": map[string]any{"amount": 1.5}})
	f.waitRows(1)
	tables := filepath.Dir(f.tableDir(t))
	if err := os.WriteFile(filepath.Join(tables, "flat"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(tables, "torn", "part"), 0o755); err != nil {
		t.Fatal(err)
	}
	status, body := getPage(t, f.portal("workspaces/"+f.ws+"/lakehouses/"+f.lh), "")
	if status != 200 {
		t.Fatalf("Lakehouse page: %d", status)
	}
	for _, w := range []string{">orders<", "flat", "not a directory", "torn", "no _delta_log"} {
		if !strings.Contains(body, w) {
			t.Errorf("the Lakehouse page lacks %q", w)
		}
	}
}
