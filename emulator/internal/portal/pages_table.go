package portal

import (
	"bufio"
	"encoding/json"
	"fmt"
	"github.com/fabrictest/fabrictest/emulator/wire"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/fabrictest/fabrictest/emulator/delta"
)

// Table page limits: the rows and rejected records it shows.
const (
	firstRows     = 50
	firstRejected = 50
)

// tableView is a Lakehouse table's page.
type tableView struct {
	Lakehouse item
	Table     table
	Version   int64
	Fields    []delta.Field
	Commits   []delta.Commit
	Columns   []string
	Rows      [][]string
	TotalRows int
	Rejected  []rejected
	ReadErr   string
}

// rejected is one row a destination parked, with its reason.
type rejected struct {
	Destination string
	Seq         int64
	Reason      string
	Row         string
}

// tablePage shows one Delta table: schema, commits with their row counts,
// the first rows, and the rows destinations rejected for it. The principal
// must be able to list the Lakehouse's tables (Viewer and up); the table
// is read where that answer locates it.
func (p *Portal) tablePage(r *http.Request, principal string) (page, error) {
	api := lakehouseAPI(r)
	v := tableView{}
	if err := p.get(r, principal, api, &v.Lakehouse); err != nil {
		return page{}, err
	}
	var ts struct {
		Data []table `json:"data"`
	}
	if err := p.get(r, principal, api+"/tables", &ts); err != nil {
		return page{}, err
	}
	name := r.PathValue("table")
	for _, t := range ts.Data {
		if t.Name == name {
			v.Table = t
		}
	}
	if v.Table.Name == "" {
		return page{}, newAPIError(http.StatusNotFound, wire.TableNotFound, "Lakehouse %s has no table %q", v.Lakehouse.DisplayName, name)
	}
	if err := v.read(); err != nil {
		v.ReadErr = err.Error()
	}
	files, _ := v.Lakehouse.Property("x-fabrictest-localFilesPath").(string)
	if files != "" {
		v.Rejected = readRejected(filepath.Join(files, "_rejected", name))
	}
	crumbs := []crumb{home, workspaceCrumb(r, p.workspaceName(r, principal)),
		{Name: v.Lakehouse.DisplayName, URL: Prefix + "workspaces/" + url.PathEscape(r.PathValue("ws")) + "/lakehouses/" + url.PathEscape(r.PathValue("id"))}}
	return page{Template: "table", Title: "Table " + name, Crumbs: crumbs, Body: v}, nil
}

// read fills the schema, commits and first rows from the Delta table.
func (v *tableView) read() error {
	snap, err := delta.ReadTable(v.Table.Location)
	if err != nil {
		return fmt.Errorf("read table: %w", err)
	}
	v.Version, v.Fields, v.Commits, v.TotalRows = snap.Version, snap.Schema.Fields, snap.Commits, len(snap.Rows)
	v.Columns = snap.Schema.Names()
	for _, row := range snap.Rows[:min(firstRows, len(snap.Rows))] {
		cells := make([]string, len(v.Columns))
		for i, c := range v.Columns {
			cells[i] = cell(row[c])
		}
		v.Rows = append(v.Rows, cells)
	}
	return nil
}

// cell renders one value of a row: null, a string as is, else JSON.
func cell(x any) string {
	switch x := x.(type) {
	case nil:
		return "null"
	case string:
		return safeText(x)
	}
	b, err := json.Marshal(x)
	if err != nil {
		return fmt.Sprint(x)
	}
	return string(b)
}

// readRejected reads the first rejected rows of each destination's file in
// dir (Files/_rejected/<table>/<destination>.jsonl).
func readRejected(dir string) []rejected {
	entries, _ := os.ReadDir(dir)
	var out []rejected
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".jsonl") {
			continue
		}
		out = append(out, readRejectedFile(filepath.Join(dir, e.Name()), strings.TrimSuffix(e.Name(), ".jsonl"), firstRejected-len(out))...)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Seq < out[j].Seq })
	return out
}

// readRejectedFile reads up to n lines of one rejected-rows file.
func readRejectedFile(path, dest string, n int) []rejected {
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	var out []rejected
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	for len(out) < n && sc.Scan() {
		var line struct {
			Seq    int64           `json:"seq"`
			Reason string          `json:"reason"`
			Row    json.RawMessage `json:"row"`
		}
		if json.Unmarshal(sc.Bytes(), &line) != nil {
			continue
		}
		out = append(out, rejected{Destination: dest, Seq: line.Seq, Reason: line.Reason, Row: show(line.Row).Text})
	}
	return out
}
