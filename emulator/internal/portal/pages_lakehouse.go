package portal

import (
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"sort"
)

// lakehouseView is a Lakehouse's page: its tables, and what lies under
// Tables/ that the tables route does not list, with why.
type lakehouseView struct {
	Item   item
	Tables []table
	Broken []brokenTable
}

// brokenTable is an entry of Tables/ that is no Delta table.
type brokenTable struct{ Name, Problem string }

// lakehousePage lists a Lakehouse's Delta tables (the tables route) and,
// read from its Tables directory after the route admitted the principal,
// the entries that are not tables.
func (p *Portal) lakehousePage(r *http.Request, principal string) (page, error) {
	api := lakehouseAPI(r)
	var v lakehouseView
	if err := p.get(r, principal, api, &v.Item); err != nil {
		return page{}, err
	}
	var ts struct {
		Data []table `json:"data"`
	}
	if err := p.get(r, principal, api+"/tables", &ts); err != nil {
		return page{}, err
	}
	v.Tables = ts.Data
	if dir, _ := v.Item.Property("x-fabrictest-localTablesPath").(string); dir != "" {
		v.Broken = brokenTables(dir, v.Tables)
	}
	crumbs := []crumb{home, workspaceCrumb(r, p.workspaceName(r, principal))}
	return page{Template: "lakehouse", Title: v.Item.DisplayName, Crumbs: crumbs, Body: v}, nil
}

// brokenTables lists the entries of dir that listed does not hold.
func brokenTables(dir string, listed []table) []brokenTable {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	ok := map[string]bool{}
	for _, t := range listed {
		ok[t.Name] = true
	}
	var out []brokenTable
	for _, e := range entries {
		switch {
		case ok[e.Name()]:
		case !e.IsDir():
			out = append(out, brokenTable{e.Name(), "not a directory: a table is a directory with a _delta_log"})
		default:
			_, err := os.Stat(filepath.Join(dir, e.Name(), "_delta_log"))
			problem := "no _delta_log: not a Delta table"
			if err != nil && !os.IsNotExist(err) {
				problem = err.Error()
			}
			out = append(out, brokenTable{e.Name(), problem})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// lakehouseAPI is the API path of the request's Lakehouse.
func lakehouseAPI(r *http.Request) string {
	return "/v1/workspaces/" + url.PathEscape(r.PathValue("ws")) + "/lakehouses/" + url.PathEscape(r.PathValue("id"))
}
