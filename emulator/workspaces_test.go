package emulator_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/fabrictest/fabrictest/emulator"
)

func TestWorkspaceCRUD(t *testing.T) {
	e := startEnv(t)
	r := e.must(201, e.call("POST", "/v1/workspaces", map[string]any{"displayName": "Sales", "description": "d"}))
	id := r.str("id")
	if loc := r.Header.Get("Location"); !strings.HasSuffix(loc, "/v1/workspaces/"+id) || !strings.HasPrefix(loc, "http") {
		t.Fatalf("Location = %q", loc)
	}
	if r.str("type") != "Workspace" || r.str("displayName") != "Sales" {
		t.Fatalf("create answered %s", r.Raw)
	}
	g := e.must(200, e.call("GET", "/v1/workspaces/"+id, nil))
	if g.str("capacityAssignmentProgress") != "Completed" || g.str("description") != "d" {
		t.Fatalf("get answered %s", g.Raw)
	}
	p := e.must(200, e.call("PATCH", "/v1/workspaces/"+id, map[string]any{"displayName": "Sales EU"}))
	if p.str("displayName") != "Sales EU" || p.str("description") != "d" {
		t.Fatalf("patch answered %s", p.Raw)
	}
	e.wantError(e.call("POST", "/v1/workspaces", map[string]any{"displayName": "sales eu"}), 409, "WorkspaceNameAlreadyExists")
	e.wantError(e.call("POST", "/v1/workspaces", map[string]any{"displayName": ""}), 400, "InvalidInput")
	e.wantError(e.call("POST", "/v1/workspaces", map[string]any{"displayName": strings.Repeat("x", 257)}), 400, "InvalidInput")
	e.wantError(e.call("POST", "/v1/workspaces", map[string]any{"displayName": "x", "colour": "red"}), 400, "InvalidInput")
	e.wantError(e.call("POST", "/v1/workspaces", `{"displayName": `), 400, "InvalidRequest")
	e.wantError(e.call("POST", "/v1/workspaces", `{"displayName": 5}`), 400, "InvalidInput")
	e.must(200, e.call("DELETE", "/v1/workspaces/"+id, nil))
	e.wantError(e.call("GET", "/v1/workspaces/"+id, nil), 404, "WorkspaceNotFound")
	e.wantError(e.call("GET", "/v1/workspaces/not-a-guid", nil), 404, "WorkspaceNotFound")
	e.wantError(e.call("DELETE", "/v1/workspaces/"+id, nil), 404, "WorkspaceNotFound")
}

func TestWorkspaceListPaging(t *testing.T) {
	e := startEnv(t, emulator.WithPageSize(2))
	want := map[string]bool{}
	for i := range 5 {
		want[e.workspace(fmt.Sprintf("ws-%d", i))] = true
	}
	got := map[string]bool{}
	path, pages := "/v1/workspaces", 0
	for {
		r := e.must(200, e.call("GET", path, nil))
		pages++
		for _, v := range r.Body["value"].([]any) {
			got[v.(map[string]any)["id"].(string)] = true
		}
		tok := r.str("continuationToken")
		if tok == "" {
			if _, ok := r.Body["continuationUri"]; ok {
				t.Fatal("last page carries continuationUri")
			}
			break
		}
		if !strings.Contains(r.str("continuationUri"), "continuationToken=") {
			t.Fatalf("continuationUri = %q", r.str("continuationUri"))
		}
		path = "/v1/workspaces?continuationToken=" + tok
	}
	if pages != 3 || len(got) != 5 {
		t.Fatalf("%d pages, %d workspaces; want 3 and 5", pages, len(got))
	}
	for id := range want {
		if !got[id] {
			t.Fatalf("workspace %s missing from the listing", id)
		}
	}
	e.wantError(e.call("GET", "/v1/workspaces?continuationToken=bogus", nil), 400, "InvalidContinuationToken")
	e.wantError(e.call("GET", "/v1/workspaces?roles=Owner", nil), 400, "InvalidParameter")
}

func TestRolesAndPrivileges(t *testing.T) {
	e := startEnv(t)
	const bob = "b0b00000-0000-0000-0000-000000000001"
	const eve = "e0e00000-0000-0000-0000-000000000002"
	bobTok, _ := e.srv.Token(bob)
	eveTok, _ := e.srv.Token(eve)
	ws := e.workspace("team")
	es, ds := e.eventstream(ws, "clicks")

	// The creator is Admin.
	roles := e.must(200, e.call("GET", "/v1/workspaces/"+ws+"/roleAssignments", nil))
	first := roles.Body["value"].([]any)[0].(map[string]any)
	if p := first["principal"].(map[string]any); first["role"] != "Admin" || p["id"] == "" || p["type"] != "User" {
		t.Fatalf("role assignments %s", roles.Raw)
	}

	// Bob has no role: he cannot see or list the workspace.
	e.wantError(e.callAs(bobTok, "GET", "/v1/workspaces/"+ws, nil), 403, "InsufficientPrivileges")
	e.wantError(e.callAs(bobTok, "GET", "/v1/eventstreams/"+es+"/sources/"+ds, nil), 403, "InsufficientPrivileges")
	if n := len(e.must(200, e.callAs(bobTok, "GET", "/v1/workspaces", nil)).Body["value"].([]any)); n != 0 {
		t.Fatalf("bob lists %d workspaces", n)
	}

	// Bob as Viewer reads, resolves and consumes, but cannot produce or change anything.
	add := e.must(201, e.call("POST", "/v1/workspaces/"+ws+"/roleAssignments",
		map[string]any{"principal": map[string]any{"id": bob, "type": "User"}, "role": "Viewer"}))
	if add.str("id") != bob || !strings.HasSuffix(add.Header.Get("Location"), "/roleAssignments/"+bob) {
		t.Fatalf("add role answered %s", add.Raw)
	}
	e.wantError(e.call("POST", "/v1/workspaces/"+ws+"/roleAssignments",
		map[string]any{"principal": map[string]any{"id": bob, "type": "User"}, "role": "Member"}), 409, "PrincipalAlreadyHasWorkspaceRolePermissions")
	e.must(200, e.callAs(bobTok, "GET", "/v1/workspaces/"+ws, nil))
	e.must(200, e.callAs(bobTok, "GET", "/v1/eventstreams/"+es+"/sources/"+ds, nil))
	e.must(200, e.callAs(bobTok, "GET", "/v1/eventstreams/"+es+"/sources/"+ds+"/events", nil))
	produce := "/v1/workspaces/" + ws + "/eventstreams/" + es + "/sources/" + ds + "/events"
	e.wantError(e.callAs(bobTok, "POST", produce, map[string]any{"events": []any{map[string]any{"value": 1}}}), 403, "InsufficientPrivileges")
	e.wantError(e.callAs(bobTok, "POST", "/v1/workspaces/"+ws+"/eventstreams", map[string]any{"displayName": "x"}), 403, "InsufficientPrivileges")
	e.wantError(e.callAs(bobTok, "PATCH", "/v1/workspaces/"+ws+"/eventstreams/"+es, map[string]any{"description": "x"}), 403, "InsufficientPrivileges")
	e.wantError(e.callAs(bobTok, "DELETE", "/v1/workspaces/"+ws+"/items/"+es, nil), 403, "InsufficientPrivileges")
	e.wantError(e.callAs(bobTok, "PATCH", "/v1/workspaces/"+ws, map[string]any{"description": "x"}), 403, "InsufficientPrivileges")
	e.wantError(e.callAs(bobTok, "POST", "/v1/workspaces/"+ws+"/roleAssignments",
		map[string]any{"principal": map[string]any{"id": eve, "type": "User"}, "role": "Viewer"}), 403, "InsufficientPrivileges")

	// Promoted to Contributor, Bob produces.
	e.must(200, e.call("PATCH", "/v1/workspaces/"+ws+"/roleAssignments/"+bob, map[string]any{"role": "Contributor"}))
	e.must(200, e.callAs(bobTok, "POST", produce, map[string]any{"events": []any{map[string]any{"value": 1}}}))

	// A Member may add Members but not Admins.
	e.must(200, e.call("PATCH", "/v1/workspaces/"+ws+"/roleAssignments/"+bob, map[string]any{"role": "Member"}))
	e.wantError(e.callAs(bobTok, "POST", "/v1/workspaces/"+ws+"/roleAssignments",
		map[string]any{"principal": map[string]any{"id": eve, "type": "User"}, "role": "Admin"}), 403, "InsufficientPrivileges")
	e.must(201, e.callAs(bobTok, "POST", "/v1/workspaces/"+ws+"/roleAssignments",
		map[string]any{"principal": map[string]any{"id": eve, "type": "ServicePrincipal"}, "role": "Member"}))
	e.must(200, e.callAs(eveTok, "GET", "/v1/workspaces/"+ws+"/roleAssignments/"+eve, nil))

	// Bad bodies name the field.
	r := e.call("POST", "/v1/workspaces/"+ws+"/roleAssignments", map[string]any{"principal": map[string]any{"id": eve, "type": "User"}, "role": "Owner"})
	e.wantError(r, 400, "InvalidInput")
	if !strings.Contains(r.str("message"), "role") {
		t.Fatalf("message does not name the field: %s", r.Raw)
	}
	e.wantError(e.call("POST", "/v1/workspaces/"+ws+"/roleAssignments", map[string]any{"principal": map[string]any{"id": "x", "type": "User"}, "role": "Viewer"}), 400, "InvalidInput")
	e.wantError(e.call("POST", "/v1/workspaces/"+ws+"/roleAssignments", map[string]any{"principal": map[string]any{"id": eve, "type": "Robot"}, "role": "Viewer"}), 400, "InvalidInput")

	// The last Admin stays.
	admin := first["id"].(string)
	e.wantError(e.call("DELETE", "/v1/workspaces/"+ws+"/roleAssignments/"+admin, nil), 400, "WorkspaceMustHaveAdmin")
	e.wantError(e.call("PATCH", "/v1/workspaces/"+ws+"/roleAssignments/"+admin, map[string]any{"role": "Viewer"}), 400, "WorkspaceMustHaveAdmin")

	// Removing Eve takes her access away.
	e.must(200, e.call("DELETE", "/v1/workspaces/"+ws+"/roleAssignments/"+eve, nil))
	e.wantError(e.callAs(eveTok, "GET", "/v1/workspaces/"+ws, nil), 403, "InsufficientPrivileges")
	e.wantError(e.call("GET", "/v1/workspaces/"+ws+"/roleAssignments/"+eve, nil), 404, "PrincipalNotFound")
}
