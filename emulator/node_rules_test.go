package emulator_test

// The node rules of Fabric's pause and resume (fabric-rest-api-specs
// eventstream/swagger.json: every resume takes a DataSourceStartRequest,
// whose startType is required;
// https://learn.microsoft.com/rest/api/fabric/eventstream/topology/pause-eventstream),
// and where the emulator differs (docs/differences.md).

import (
	"strings"
	"testing"
)

// TestResumeRequiresStartType: the Eventstream's, a source's and a
// destination's resume refuse a request without startType, naming it.
func TestResumeRequiresStartType(t *testing.T) {
	e := startEnv(t)
	f := deployEndpointIn(e)
	for _, path := range []string{"/resume", "/sources/" + f.src + "/resume", "/destinations/" + f.lake + "/resume"} {
		for _, body := range []any{`{}`, `{"customStartDateTime":"2026-01-02T15:04:05Z"}`} {
			r := e.call("POST", f.base+path, body)
			e.wantError(r, 400, "InvalidInput")
			if !strings.Contains(string(r.Raw), "startType") {
				t.Fatalf("%s %s: the refusal does not name startType: %s", path, body, r.Raw)
			}
		}
	}
}

// TestUpdateDefinitionKeepsNodesPaused: the emulator keeps a paused node
// paused across an updateDefinition that keeps it (Fabric makes every node
// active again after a Git sync or a deployment: a documented difference).
func TestUpdateDefinitionKeepsNodesPaused(t *testing.T) {
	e := startEnv(t)
	f := deployEndpointIn(e)
	e.must(200, e.call("POST", f.base+"/destinations/"+f.lake+"/pause", nil))
	def := e.must(200, e.call("POST", f.base+"/getDefinition", nil)).Body["definition"]
	e.must(200, e.call("POST", f.base+"/updateDefinition", map[string]any{"definition": def}))
	if st := nodesByName(e.must(200, e.call("GET", f.base+"/topology", nil)).Body, "destinations")["lake"]["status"]; st != "Paused" {
		t.Fatalf("after updateDefinition the paused destination is %v", st)
	}
}
