package emulator

import (
	"context"
	"fmt"
	"net/http"
	"path"
	"strings"

	"github.com/fabrictest/fabrictest/emulator/internal/auth"
	"github.com/fabrictest/fabrictest/emulator/internal/portal"
)

// PortalPath is where the emulator serves its portal: pages that show its
// workspaces, Eventstreams, streams and tables in a browser.
const PortalPath = portal.Prefix

// WithoutPortal serves no portal: /_emulator/portal/ answers
// EndpointNotFound like any unknown route.
func WithoutPortal() Option {
	return func(c *config) error { c.noPortal = true; return nil }
}

// mountPortal returns the handler the server answers with: the API, and
// the portal under PortalPath unless WithoutPortal. The portal's live
// previews end when the server starts to shut down.
func (s *Server) mountPortal() (http.Handler, error) {
	if s.cfg.noPortal {
		return s.api, nil
	}
	p, err := portal.New(portal.Config{API: s.api, Broker: s.broker, Remote: s.cfg.remoteTokens, Logger: s.cfg.logger,
		DefaultPrincipal: auth.DefaultPrincipal,
		Mint: func(principal string) (string, error) {
			tok, _, err := s.issuer.Mint(auth.MintOptions{Principal: principal})
			return tok, err
		},
		TakeRows: s.takeRows()})
	if err != nil {
		return nil, fmt.Errorf("start portal: %w", err)
	}
	s.portal = p
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// A path that is not canonical (//, . or ..) goes to the API,
		// which answers it 400 InvalidPath as it answers every other.
		if portal.Owns(r.URL.Path) && canonical(r.URL.Path) {
			p.ServeHTTP(w, r)
			return
		}
		s.api.ServeHTTP(w, r)
	}), nil
}

// canonical reports whether p is its own clean form (a trailing slash
// allowed).
func canonical(p string) bool {
	c := path.Clean(p)
	return c == p || c+"/" == p && !strings.HasSuffix(c, "/")
}

// takeRows reads an Eventhouse table's first rows for the portal's
// Eventhouse page, with the runtime's client of the Kusto engine
// (--kql-url); nil without an engine.
func (s *Server) takeRows() portal.TakeRows {
	if s.cfg.kqlURL == "" {
		return nil
	}
	return func(ctx context.Context, database, table string, n int) ([]string, [][]any, error) {
		c, err := s.rt.Kusto()
		if err != nil {
			return nil, nil, err
		}
		return c.Take(ctx, database, table, n)
	}
}
