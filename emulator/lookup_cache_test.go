package emulator_test

import "testing"

// TestDataPlaneSeesEachChangeOnItsNextCall: the produce and consume routes
// answer from a cache of the workspace, item and role look-ups (the store's
// read cache); each change below is seen by the very call that follows it,
// the same calls having succeeded just before (so the cache held the old
// answer).
func TestDataPlaneSeesEachChangeOnItsNextCall(t *testing.T) {
	e := startEnv(t)
	const bob = "b0b00000-0000-0000-0000-00000000cace"
	bobTok, _ := e.srv.Token(bob)
	ws := e.workspace("fresh")
	es, ds := e.eventstream(ws, "fresh-es")
	base := "/v1/workspaces/" + ws + "/eventstreams/" + es
	produce := base + "/sources/" + ds + "/events"
	consume := "/v1/eventstreams/" + es + "/sources/" + ds + "/events?timeoutMs=0"
	event := `{"events":[{"value":1}]}`
	warm := func() {
		t.Helper()
		for range 2 {
			e.must(200, e.callAs(bobTok, "POST", produce, event))
			e.must(200, e.callAs(bobTok, "GET", consume, nil))
		}
	}
	e.must(201, e.call("POST", "/v1/workspaces/"+ws+"/roleAssignments",
		map[string]any{"principal": map[string]any{"id": bob, "type": "User"}, "role": "Contributor"}))

	// A role lowered: produce refused, consume still allowed.
	warm()
	e.must(200, e.call("PATCH", "/v1/workspaces/"+ws+"/roleAssignments/"+bob, map[string]any{"role": "Viewer"}))
	e.wantError(e.callAs(bobTok, "POST", produce, event), 403, "InsufficientPrivileges")
	e.must(200, e.callAs(bobTok, "GET", consume, nil))

	// A role removed: both refused.
	e.must(200, e.call("PATCH", "/v1/workspaces/"+ws+"/roleAssignments/"+bob, map[string]any{"role": "Contributor"}))
	warm()
	e.must(200, e.call("DELETE", "/v1/workspaces/"+ws+"/roleAssignments/"+bob, nil))
	e.wantError(e.callAs(bobTok, "POST", produce, event), 403, "InsufficientPrivileges")
	e.wantError(e.callAs(bobTok, "GET", consume, nil), 403, "InsufficientPrivileges")

	// The source changed (the Eventstream paused): produce refused.
	e.must(201, e.call("POST", "/v1/workspaces/"+ws+"/roleAssignments",
		map[string]any{"principal": map[string]any{"id": bob, "type": "User"}, "role": "Contributor"}))
	warm()
	e.must(200, e.call("POST", base+"/pause", nil))
	e.wantError(e.callAs(bobTok, "POST", produce, event), 409, "EventstreamSourcePaused")
	e.must(200, e.call("POST", base+"/resume", `{"startType":"Now"}`))
	e.must(200, e.callAs(bobTok, "POST", produce, event))

	// The item deleted: both answer that it is not there.
	warm()
	e.must(200, e.call("DELETE", "/v1/workspaces/"+ws+"/items/"+es, nil))
	e.wantError(e.callAs(bobTok, "POST", produce, event), 404, "ItemNotFound")
	e.wantError(e.callAs(bobTok, "GET", consume, nil), 404, "ItemNotFound")

	// The workspace deleted: the produce route names the workspace.
	es2, ds2 := e.eventstream(ws, "fresh-es2")
	produce2 := "/v1/workspaces/" + ws + "/eventstreams/" + es2 + "/sources/" + ds2 + "/events"
	e.must(200, e.callAs(bobTok, "POST", produce2, event))
	e.must(200, e.callAs(bobTok, "POST", produce2, event))
	e.must(200, e.call("DELETE", "/v1/workspaces/"+ws, nil))
	e.wantError(e.callAs(bobTok, "POST", produce2, event), 404, "WorkspaceNotFound")
}
