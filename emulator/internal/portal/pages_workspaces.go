package portal

import (
	"net/http"
	"net/url"
	"sort"

	"github.com/fabrictest/fabrictest/emulator/wire"
)

// workspaceRow is a workspace with the viewer's role in it.
type workspaceRow struct {
	workspace
	Role string
}

// workspacesView is the first page: the principal's workspaces and the
// fault rules active in the emulator.
type workspacesView struct {
	Rows      []workspaceRow
	Faults    []wire.FaultRuleState
	FaultsErr error
}

// workspacesPage lists the workspaces the principal has a role in, and
// the active fault rules (/_emulator/faults), so that a test's injected
// faults are in sight while it runs.
func (p *Portal) workspacesPage(r *http.Request, principal string) (page, error) {
	ws, err := getAll[workspace](p, r, principal, "/v1/workspaces")
	if err != nil {
		return page{}, err
	}
	v := workspacesView{Rows: make([]workspaceRow, 0, len(ws))}
	for _, w := range ws {
		row := workspaceRow{workspace: w}
		var ra roleAssignment
		if p.get(r, principal, "/v1/workspaces/"+url.PathEscape(w.ID)+"/roleAssignments/"+url.PathEscape(principal), &ra) == nil {
			row.Role = ra.Role
		}
		v.Rows = append(v.Rows, row)
	}
	var faults wire.FaultRules
	v.FaultsErr = p.get(r, principal, "/_emulator/faults", &faults)
	v.Faults = faults.Value
	return page{Template: "workspaces", Title: "Workspaces", Body: v}, nil
}

// workspaceView is a workspace's page: its items and role assignments.
type workspaceView struct {
	Workspace workspace
	Items     []item
	Roles     []roleAssignment
	RolesErr  error
}

// workspacePage shows one workspace's items and who holds which role.
func (p *Portal) workspacePage(r *http.Request, principal string) (page, error) {
	base := "/v1/workspaces/" + url.PathEscape(r.PathValue("ws"))
	var v workspaceView
	if err := p.get(r, principal, base, &v.Workspace); err != nil {
		return page{}, err
	}
	items, err := getAll[item](p, r, principal, base+"/items")
	if err != nil {
		return page{}, err
	}
	v.Items = items
	sort.SliceStable(v.Items, func(i, j int) bool { return v.Items[i].Type < v.Items[j].Type })
	v.Roles, v.RolesErr = getAll[roleAssignment](p, r, principal, base+"/roleAssignments")
	return page{Template: "workspace", Title: v.Workspace.DisplayName, Crumbs: []crumb{home}, Body: v}, nil
}

// home is the first crumb of every trail.
var home = crumb{Name: "Workspaces", URL: Prefix}

// workspaceCrumb links a workspace's page.
func workspaceCrumb(r *http.Request, name string) crumb {
	return crumb{Name: name, URL: Prefix + "workspaces/" + url.PathEscape(r.PathValue("ws"))}
}

// workspaceName is a workspace's display name ("workspace" when the
// principal cannot read it).
func (p *Portal) workspaceName(r *http.Request, principal string) string {
	var w workspace
	if p.get(r, principal, "/v1/workspaces/"+url.PathEscape(r.PathValue("ws")), &w) != nil {
		return "workspace"
	}
	return w.DisplayName
}
