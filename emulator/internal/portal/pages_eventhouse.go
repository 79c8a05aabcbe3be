package portal

import (
	"context"
	"net/http"
	"net/url"
	"sort"

	"github.com/fabrictest/fabrictest/emulator/wire"
)

// eventhouseRows is how many rows the Eventhouse page shows of a table.
const eventhouseRows = 20

// TakeRows reads at most n rows of a table of the Kusto engine behind the
// Eventhouses: the column names in order and each row's values.
type TakeRows func(ctx context.Context, database, table string, n int) ([]string, [][]any, error)

// kqlTable is one table Eventhouse destinations write, with its first rows.
type kqlTable struct {
	Database, Table string
	Streams         []string // the Eventstreams whose destinations write it
	Columns         []string
	Rows            [][]string
	Err             error
}

// eventhouseView is an Eventhouse's page.
type eventhouseView struct {
	Item   item
	Engine bool // a Kusto engine is attached (--kql-url)
	Tables []kqlTable
}

// eventhousePage shows the tables that the workspace's Eventhouse
// destinations write into this Eventhouse, each with its first rows read
// from the Kusto engine (the emulator keeps no rows of its own).
func (p *Portal) eventhousePage(r *http.Request, principal string) (page, error) {
	ws := r.PathValue("ws")
	var v eventhouseView
	if err := p.get(r, principal, "/v1/workspaces/"+url.PathEscape(ws)+"/eventhouses/"+url.PathEscape(r.PathValue("id")), &v.Item); err != nil {
		return page{}, err
	}
	tables, err := p.eventhouseTables(r, principal, ws, v.Item)
	if err != nil {
		return page{}, err
	}
	v.Engine, v.Tables = p.cfg.TakeRows != nil, tables
	if v.Engine {
		for i := range v.Tables {
			v.Tables[i].read(r.Context(), p.cfg.TakeRows)
		}
	}
	crumbs := []crumb{home, workspaceCrumb(r, p.workspaceName(r, principal))}
	return page{Template: "eventhouse", Title: v.Item.DisplayName, Crumbs: crumbs, Body: v}, nil
}

// eventhouseTables lists the tables the destinations of the workspace's
// Eventstreams write into eh, by database and table.
func (p *Portal) eventhouseTables(r *http.Request, principal, ws string, eh item) ([]kqlTable, error) {
	streams, err := getAll[item](p, r, principal, "/v1/workspaces/"+url.PathEscape(ws)+"/eventstreams")
	if err != nil {
		return nil, err
	}
	byName := map[[2]string]*kqlTable{}
	for _, es := range streams {
		var ds list[wire.Destination]
		if p.get(r, principal, "/v1/workspaces/"+url.PathEscape(ws)+"/eventstreams/"+url.PathEscape(es.ID)+"/destinations", &ds) != nil {
			continue
		}
		for _, d := range ds.Value {
			if d.Type != "Eventhouse" || d.ItemID != eh.ID {
				continue
			}
			db := d.Database
			if db == "" {
				db = eh.DisplayName
			}
			k := [2]string{db, d.Table}
			if byName[k] == nil {
				byName[k] = &kqlTable{Database: db, Table: d.Table}
			}
			byName[k].Streams = append(byName[k].Streams, es.DisplayName)
		}
	}
	out := make([]kqlTable, 0, len(byName))
	for _, t := range byName {
		out = append(out, *t)
	}
	sort.Slice(out, func(i, j int) bool {
		return out[i].Database+"\x00"+out[i].Table < out[j].Database+"\x00"+out[j].Table
	})
	return out, nil
}

// read takes the table's first rows from the engine; an engine that
// cannot answer (the table not made yet, the engine down) leaves Err.
func (t *kqlTable) read(ctx context.Context, take TakeRows) {
	cols, rows, err := take(ctx, t.Database, t.Table, eventhouseRows)
	if err != nil {
		t.Err = err
		return
	}
	t.Columns = cols
	for _, row := range rows {
		cells := make([]string, len(row))
		for i, x := range row {
			cells[i] = cell(x)
		}
		t.Rows = append(t.Rows, cells)
	}
}
