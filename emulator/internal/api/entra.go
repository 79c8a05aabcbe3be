package api

import (
	"net/http"

	"github.com/fabrictest/fabrictest/emulator/internal/entra"
	"github.com/fabrictest/fabrictest/emulator/internal/fabricerr"
)

// entraRoutes registers the Entra-compatible token service (its own
// answers and errors, in Entra's format) and the emulator-native routes
// of its application registry.
func (a *API) entraRoutes() {
	entraH := entraHandlers{a}
	for pattern, h := range a.cfg.Entra.Routes() {
		a.mux.HandleFunc(pattern, h)
	}
	a.handle("POST /_emulator/entra/apps", false, a.loopbackOnly("registering an application", entraH.registerApp))
	a.handle("GET /_emulator/entra/apps", false, a.loopbackOnly("listing applications", entraH.listApps))
}

// registerApp registers (or replaces) an application of the token service:
// {clientId, clientSecret, objectId?, displayName?}. Its secret is checked
// from then on, so a test can be refused with AADSTS7000215.
func (a entraHandlers) registerApp(c *call) error {
	var app entra.App
	if err := a.decode(c, &app); err != nil {
		return err
	}
	got, err := a.cfg.Entra.Apps().Register(app)
	if err != nil {
		return fabricerr.BadParameter("application", "%v", err)
	}
	got.ClientSecret = ""
	return c.JSON(http.StatusOK, got)
}

// listApps lists the registered applications, without their secrets.
func (a entraHandlers) listApps(c *call) error {
	return c.JSON(http.StatusOK, map[string]any{"value": a.cfg.Entra.Apps().List()})
}

// nonEmpty is s as a list, or none.
func nonEmpty(s string) []string {
	if s == "" {
		return nil
	}
	return []string{s}
}
