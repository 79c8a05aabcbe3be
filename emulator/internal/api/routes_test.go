package api

import (
	"regexp"
	"strings"
	"testing"

	"github.com/google/uuid"
)

// pathParam is a {name} of a route pattern.
var pathParam = regexp.MustCompile(`\{[^}]+\}`)

// concrete is pattern's method and a path with every parameter filled
// with a fresh GUID.
func concrete(pattern string) (method, path string) {
	method, path, _ = strings.Cut(pattern, " ")
	return method, pathParam.ReplaceAllStringFunc(path, func(string) string { return uuid.NewString() })
}

// TestEveryRouteAuthenticates: every route that needs a token answers a
// call without one, or with a token of a principal who has no workspace,
// in Fabric's envelope before it does anything (401 InvalidToken; 404
// WorkspaceNotFound for a workspace the caller cannot see); no route
// answers a 5xx to a call it refuses.
func TestEveryRouteAuthenticates(t *testing.T) {
	e := newHandlerEnv(t)
	stranger := e.token()
	if len(e.api.registered) < 80 {
		t.Fatalf("%d routes registered, want the whole surface", len(e.api.registered))
	}
	for _, r := range e.api.registered {
		t.Run(r.pattern, func(t *testing.T) {
			method, path := concrete(r.pattern)
			if !r.authenticated {
				if a := e.call("", method, path, ""); a.status >= 500 {
					t.Fatalf("unauthenticated call: %d %s", a.status, a.raw)
				}
				return
			}
			e.call("", method, path, "{}").wantError(t, 401, "InvalidToken")
			e.call("not-a-token", method, path, "{}").wantError(t, 401, "InvalidToken")
			if strings.Contains(r.pattern, "{ws}") {
				e.call(stranger, method, path, "{}").wantError(t, 404, "WorkspaceNotFound")
			}
		})
	}
}
