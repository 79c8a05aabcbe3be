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
	"strconv"
	"strings"

	"github.com/fabrictest/fabrictest/emulator/delta"
)

// Table page limits: the rows a page shows, the commits and the
// rejected records it lists.
const (
	pageRows      = 50
	lastCommits   = 50
	firstRejected = 50
)

// tableView is a Lakehouse table's page.
type tableView struct {
	Lakehouse item
	Table     table
	Version   int64
	Fields    []delta.Field
	Commits   []delta.Commit // the newest first
	Columns   []string
	Rows      [][]string
	TotalRows int64
	Page      int   // 1-based
	FirstRow  int64 // 1-based, of this page
	Prev      string
	Next      string
	Rejected  []rejected
	ReadErr   string
}

// rejected is one row a destination parked, with its reason.
type rejected struct {
	Destination string // its name when an Eventstream of the workspace has it, else its id
	Seq         int64
	Reason      string
	Row         string
}

// tablePage shows one Delta table: schema, commits with their row counts,
// one page of rows (?page=, 50 a page; only the data files the page's rows
// are in are read), and the rows destinations rejected for it. The
// principal must be able to list the Lakehouse's tables (Viewer and up);
// the table is read where that answer locates it.
func (p *Portal) tablePage(r *http.Request, principal string) (page, error) {
	api := lakehouseAPI(r)
	v := tableView{Page: 1}
	if n, err := strconv.Atoi(r.URL.Query().Get("page")); err == nil && n > 1 {
		v.Page = n
	}
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
	if err := v.read(r.URL.Path); err != nil {
		v.ReadErr = err.Error()
	}
	files, _ := v.Lakehouse.Property("x-fabrictest-localFilesPath").(string)
	if files != "" {
		v.Rejected = readRejected(filepath.Join(files, "_rejected", name))
		p.nameDestinations(r, principal, v.Rejected)
	}
	crumbs := []crumb{home, workspaceCrumb(r, p.workspaceName(r, principal)),
		{Name: v.Lakehouse.DisplayName, URL: Prefix + "workspaces/" + url.PathEscape(r.PathValue("ws")) + "/lakehouses/" + url.PathEscape(r.PathValue("id"))}}
	return page{Template: "table", Title: "Table " + name, Crumbs: crumbs, Body: v}, nil
}

// read fills the schema, the commits and the page's rows: the table's
// state from its log (from the last checkpoint on), then only the data
// files of the page's rows.
func (v *tableView) read(self string) error {
	dir := v.Table.Location
	snap, _, err := delta.ReadState(dir)
	if err != nil {
		return fmt.Errorf("read table: %w", err)
	}
	v.Version, v.Fields, v.Columns = snap.Version, snap.Schema.Fields, snap.Schema.Names()
	for i := len(snap.Commits) - 1; i >= 0 && len(v.Commits) < lastCommits; i-- {
		v.Commits = append(v.Commits, snap.Commits[i])
	}
	for _, f := range snap.Files {
		v.TotalRows += max(0, f.NumRecords)
	}
	offset := int64(v.Page-1) * pageRows
	v.FirstRow = offset + 1
	rs, err := delta.ReadRows(dir, snap, offset, pageRows)
	if err != nil {
		return fmt.Errorf("read rows: %w", err)
	}
	for _, row := range rs {
		cells := make([]string, len(v.Columns))
		for i, c := range v.Columns {
			cells[i] = cell(row[c])
		}
		v.Rows = append(v.Rows, cells)
	}
	if v.Page > 1 {
		v.Prev = self + "?page=" + strconv.Itoa(v.Page-1)
	}
	if offset+int64(len(rs)) < v.TotalRows {
		v.Next = self + "?page=" + strconv.Itoa(v.Page+1)
	}
	return nil
}

// nameDestinations replaces the destination ids of rows with the names
// the Eventstreams of the workspace give them (asked only when there are
// rejected rows; an id no Eventstream names stays).
func (p *Portal) nameDestinations(r *http.Request, principal string, rows []rejected) {
	if len(rows) == 0 {
		return
	}
	names := p.destinationNames(r, principal)
	for i := range rows {
		if n, ok := names[rows[i].Destination]; ok {
			rows[i].Destination = n
		}
	}
}

// destinationNames maps every destination id of the workspace's
// Eventstreams to its name.
func (p *Portal) destinationNames(r *http.Request, principal string) map[string]string {
	ws := "/v1/workspaces/" + url.PathEscape(r.PathValue("ws"))
	items, _ := getAll[item](p, r, principal, ws+"/items?type=Eventstream")
	out := map[string]string{}
	for _, it := range items {
		var topo topology
		if it.Type != "Eventstream" || p.get(r, principal, ws+"/eventstreams/"+url.PathEscape(it.ID)+"/topology", &topo) != nil {
			continue
		}
		for _, d := range topo.Destinations {
			out[d.ID] = d.Name
		}
	}
	return out
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
