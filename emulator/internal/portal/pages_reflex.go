package portal

import (
	"net/http"
	"net/url"
)

// reflexView is a Reflex's page: its triggers and the job instances of
// the items their actions run.
type reflexView struct {
	Item     item
	Triggers []trigger
	Jobs     []jobsOf
	Names    map[string]string // item id → display name, for the workspace's items
}

// Name is the display name of item id when the workspace has it, else id.
func (v reflexView) Name(id string) string {
	if n, ok := v.Names[id]; ok {
		return n
	}
	return id
}

// jobsOf is one action item's job instances.
type jobsOf struct {
	WorkspaceID, ItemID string
	Instances           []jobInstance
	Err                 error
}

// reflexPage shows a Reflex's triggers and, for each item a trigger's
// action runs, its job instances.
func (p *Portal) reflexPage(r *http.Request, principal string) (page, error) {
	api := "/v1/workspaces/" + url.PathEscape(r.PathValue("ws")) + "/reflexes/" + url.PathEscape(r.PathValue("id"))
	var v reflexView
	if err := p.get(r, principal, api, &v.Item); err != nil {
		return page{}, err
	}
	var ts list[trigger]
	if err := p.get(r, principal, api+"/triggers", &ts); err != nil {
		return page{}, err
	}
	v.Triggers = ts.Value
	v.Names = p.itemNames(r, principal, r.PathValue("ws"))
	seen := map[string]bool{}
	for _, t := range v.Triggers {
		ws := t.Action.WorkspaceID
		if ws == "" {
			ws = r.PathValue("ws")
		}
		if seen[ws+"/"+t.Action.ItemID] {
			continue
		}
		seen[ws+"/"+t.Action.ItemID] = true
		j := jobsOf{WorkspaceID: ws, ItemID: t.Action.ItemID}
		var js list[jobInstance]
		j.Err = p.get(r, principal, "/v1/workspaces/"+url.PathEscape(ws)+"/items/"+url.PathEscape(t.Action.ItemID)+"/jobs/instances", &js)
		j.Instances = js.Value
		v.Jobs = append(v.Jobs, j)
	}
	crumbs := []crumb{home, workspaceCrumb(r, p.workspaceName(r, principal))}
	return page{Template: "reflex", Title: v.Item.DisplayName, Crumbs: crumbs, Body: v}, nil
}

// itemNames maps the ids of workspace ws's items to their display names
// (empty when the principal cannot list them).
func (p *Portal) itemNames(r *http.Request, principal, ws string) map[string]string {
	items, _ := getAll[item](p, r, principal, "/v1/workspaces/"+url.PathEscape(ws)+"/items")
	out := map[string]string{}
	for _, it := range items {
		out[it.ID] = it.DisplayName
	}
	return out
}
