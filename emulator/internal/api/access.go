package api

import (
	"github.com/fabrictest/fabrictest/emulator/internal/control"
	"github.com/fabrictest/fabrictest/emulator/internal/store"
)

// caller is the call's principal as the control plane knows it.
func (c *call) caller() control.Caller {
	return control.Caller{ID: c.principal, Type: c.principalType}
}

// workspace loads the workspace of the call's {ws} and checks that the caller
// holds at least role min there (control.Plane.Workspace).
func (a *API) workspace(c *call, min store.Role) (store.Workspace, error) {
	return a.plane.Workspace(c.r.Context(), c.caller(), c.r.PathValue("ws"), min)
}
