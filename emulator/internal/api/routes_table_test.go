package api

import (
	"strings"
	"testing"
)

// step is one call of a route table: who calls, what, and what the API
// answers (status, and the errorCode of a refusal); keep names a value
// of the answer's body for later steps' {name} placeholders, and check
// looks at the rest.
type step struct {
	who, method, path, body string
	status                  int
	code                    string
	keep                    string
	check                   func(t *testing.T, a answer)
}

// TestRoutesTable drives the main routes of each area in order, over the
// real control plane on a temporary store: workspaces, roles, items and
// the Eventstream's topology, data insights and pause, the connection
// registry, and the routing errors, each answer checked for its status,
// its errorCode and what it must and must not carry.
func TestRoutesTable(t *testing.T) {
	e := newHandlerEnv(t)
	admin, _ := e.principal()
	viewer, viewerID := e.principal()
	who := map[string]string{"admin": admin, "viewer": viewer, "stranger": e.token(), "anonymous": ""}
	vars := map[string]string{"viewerId": viewerID}
	fill := func(s string) string {
		for k, v := range vars {
			s = strings.ReplaceAll(s, "{"+k+"}", v)
		}
		return s
	}
	ws, es, conn := "/v1/workspaces/{ws}", "/v1/workspaces/{ws}/eventstreams/{es}", "/v1/_emulator/connections/kafka-a"
	sasl := `{"workspaceId":"{ws}","bootstrapServers":" k1:9092, k2:9092 ","securityProtocol":"sasl_ssl","username":"u","password":"p"}`
	steps := []step{
		{who: "admin", method: "POST", path: "/v1/workspaces", body: `{"displayName":"w"}`, status: 201, keep: "ws",
			check: func(t *testing.T, a answer) { wantHeader(t, a, "Location", "/v1/workspaces/") }},
		{who: "admin", method: "POST", path: "/v1/workspaces", body: `{"displayName":"w"}`, status: 409, code: "WorkspaceNameAlreadyExists"},
		{who: "admin", method: "POST", path: "/v1/workspaces", body: `{"displayName":`, status: 400, code: "InvalidRequest"},
		{who: "admin", method: "GET", path: "/v1/workspaces", status: 200, check: wantValues(1)},
		{who: "viewer", method: "GET", path: ws, status: 403, code: "InsufficientPrivileges"},
		{who: "viewer", method: "GET", path: "/v1/workspaces", status: 200, check: wantValues(0)},
		{who: "admin", method: "POST", path: ws + "/roleAssignments", body: `{"principal":{"id":"{viewerId}","type":"User"},"role":"Viewer"}`, status: 201},
		{who: "admin", method: "GET", path: ws + "/roleAssignments", status: 200, check: wantValues(2)},
		{who: "viewer", method: "GET", path: ws, status: 200, check: wantField("displayName", "w")},
		{who: "viewer", method: "PATCH", path: ws, body: `{"displayName":"x"}`, status: 403, code: "InsufficientPrivileges"},
		{who: "admin", method: "POST", path: ws + "/eventstreams", body: `{"displayName":"es"}`, status: 201, keep: "es",
			check: wantField("type", "Eventstream")},
		{who: "viewer", method: "POST", path: ws + "/eventstreams", body: `{"displayName":"es2"}`, status: 403, code: "InsufficientPrivileges"},
		{who: "viewer", method: "GET", path: ws + "/items", status: 200, check: wantValues(1)},
		{who: "viewer", method: "GET", path: es + "/topology", status: 200, check: func(t *testing.T, a answer) {
			for _, list := range []string{"sources", "streams", "operators", "destinations"} {
				if _, ok := a.body[list].([]any); !ok {
					t.Fatalf("topology without a %s list: %s", list, a.raw)
				}
			}
		}},
		{who: "viewer", method: "GET", path: es + "/destinations", status: 200, check: wantValues(0)},
		{who: "viewer", method: "GET", path: es + "/metrics", status: 200, check: func(t *testing.T, a answer) { wantField("eventstreamId", vars["es"])(t, a) }},
		{who: "viewer", method: "GET", path: es + "/sources/00000000-0000-0000-0000-000000000001/metrics", status: 404, code: "EntityNotFound"},
		{who: "viewer", method: "GET", path: es + "/logs?level=Loud", status: 400, code: "InvalidInput"},
		{who: "viewer", method: "POST", path: es + "/pause", status: 403, code: "InsufficientPrivileges"},
		{who: "admin", method: "POST", path: es + "/pause", status: 200},
		{who: "admin", method: "POST", path: es + "/resume", body: `{"startType":"Soon"}`, status: 400, code: "InvalidInput"},

		{who: "admin", method: "PUT", path: conn, body: `{"bootstrapServers":"k:9092"}`, status: 400, code: "InvalidInput"},
		{who: "admin", method: "PUT", path: conn, body: `{"workspaceId":"{ws}","bootstrapServers":"nohost"}`, status: 400, code: "InvalidInput"},
		{who: "viewer", method: "PUT", path: conn, body: sasl, status: 403, code: "InsufficientPrivileges"},
		{who: "admin", method: "PUT", path: conn, body: sasl, status: 201, check: func(t *testing.T, a answer) {
			wantField("bootstrapServers", "k1:9092,k2:9092")(t, a)
			wantField("securityProtocol", "SASL_SSL")(t, a)
			wantField("saslMechanism", "PLAIN")(t, a)
			wantField("username", "u")(t, a)
			wantNoField(t, a, "password")
		}},
		{who: "admin", method: "PUT", path: conn, body: sasl, status: 200},
		{who: "viewer", method: "GET", path: conn, status: 200, check: func(t *testing.T, a answer) {
			wantField("hasPassword", true)(t, a)
			wantNoField(t, a, "username")
			wantNoField(t, a, "password")
		}},
		{who: "stranger", method: "GET", path: conn, status: 404, code: "ConnectionNotFound"},
		{who: "viewer", method: "DELETE", path: conn, status: 403, code: "InsufficientPrivileges"},
		{who: "stranger", method: "DELETE", path: conn, status: 404, code: "ConnectionNotFound"},
		{who: "viewer", method: "GET", path: "/v1/_emulator/connections", status: 200, check: wantValues(1)},
		{who: "stranger", method: "GET", path: "/v1/_emulator/connections", status: 200, check: wantValues(0)},
		{who: "admin", method: "DELETE", path: conn, status: 200},
		{who: "admin", method: "GET", path: conn, status: 404, code: "ConnectionNotFound"},

		{who: "admin", method: "DELETE", path: es, status: 200},
		{who: "admin", method: "GET", path: es, status: 404, code: "ItemNotFound"},
		{who: "anonymous", method: "GET", path: "/_emulator/health", status: 200, check: wantField("status", "ok")},
		{who: "admin", method: "GET", path: "/v1/nothing-here", status: 404, code: "EndpointNotFound"},
		{who: "admin", method: "PUT", path: ws, body: `{}`, status: 405, code: "MethodNotAllowed"},
		{who: "admin", method: "GET", path: "/v1//workspaces", status: 400, code: "InvalidPath"},
	}
	for i, s := range steps {
		a := e.call(who[s.who], s.method, fill(s.path), fill(s.body))
		name := s.who + " " + s.method + " " + s.path
		if s.code != "" {
			t.Run(name, func(t *testing.T) { a.wantError(t, s.status, s.code) })
			continue
		}
		if a.status != s.status {
			t.Fatalf("step %d, %s: %d %s, want %d", i, name, a.status, a.raw, s.status)
		}
		if s.keep != "" {
			vars[s.keep], _ = a.body["id"].(string)
		}
		if s.check != nil {
			t.Run(name, func(t *testing.T) { s.check(t, a) })
		}
	}
}

// wantValues checks a Fabric page's number of values.
func wantValues(n int) func(*testing.T, answer) {
	return func(t *testing.T, a answer) {
		t.Helper()
		if v, ok := a.body["value"].([]any); !ok || len(v) != n {
			t.Fatalf("want %d values: %s", n, a.raw)
		}
	}
}

// wantField checks one field of the answer.
func wantField(key string, want any) func(*testing.T, answer) {
	return func(t *testing.T, a answer) {
		t.Helper()
		if a.body[key] != want {
			t.Fatalf("%s = %v, want %v: %s", key, a.body[key], want, a.raw)
		}
	}
}

// wantNoField checks that the answer does not carry key.
func wantNoField(t *testing.T, a answer, key string) {
	t.Helper()
	if _, ok := a.body[key]; ok {
		t.Fatalf("the answer carries %s: %s", key, a.raw)
	}
}

// wantHeader checks that header key starts with prefix.
func wantHeader(t *testing.T, a answer, key, prefix string) {
	t.Helper()
	if !strings.Contains(a.header.Get(key), prefix) {
		t.Fatalf("%s = %q, want it to hold %q", key, a.header.Get(key), prefix)
	}
}
