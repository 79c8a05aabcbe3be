package api

import (
	"context"
	"net/http"
	"strings"

	"github.com/fabrictest/fabrictest/emulator/internal/onelake"
)

// oneLake returns the OneLake storage surface over the API's store,
// OneLake directory and token verifier (storage audience).
func (a *API) oneLake() http.Handler {
	return onelake.New(onelake.Config{
		Root:   a.cfg.OneLakeDir,
		Store:  a.cfg.Store,
		Logger: a.cfg.Logger,
		Log:    a.cfg.OneLakeLog,
		Verify: func(ctx context.Context, authorization string) (string, error) {
			c, err := a.cfg.Verifier.VerifyStorage(ctx, authorization)
			if err != nil {
				return "", err
			}
			return c.ObjectID, nil
		},
	})
}

// isOneLake reports a request for the OneLake surface: it answers in Azure
// Storage's shapes and checks its own paths, so it bypasses the Fabric
// envelope's path rules.
func isOneLake(r *http.Request) bool {
	return strings.HasPrefix(r.URL.Path, onelake.Prefix)
}

// oneLakeURL is the OneLake URL of a path under an item, as Fabric's
// properties.oneLakeTablesPath names it, on the emulator's own listener.
func oneLakeURL(base, workspaceID, itemID, sub string) string {
	return base + strings.TrimSuffix(onelake.Prefix, "/") + "/" + workspaceID + "/" + itemID + "/" + sub
}
