package portal

import (
	"net/http"
	"net/url"
)

// lakehouseView is a Lakehouse's page: its tables.
type lakehouseView struct {
	Item   item
	Tables []table
}

// lakehousePage lists a Lakehouse's Delta tables (the tables route).
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
	crumbs := []crumb{home, workspaceCrumb(r, p.workspaceName(r, principal))}
	return page{Template: "lakehouse", Title: v.Item.DisplayName, Crumbs: crumbs, Body: v}, nil
}

// lakehouseAPI is the API path of the request's Lakehouse.
func lakehouseAPI(r *http.Request) string {
	return "/v1/workspaces/" + url.PathEscape(r.PathValue("ws")) + "/lakehouses/" + url.PathEscape(r.PathValue("id"))
}
