package api

import (
	"net/http"
	"path"
	"strings"

	"github.com/fabrictest/fabrictest/emulator/internal/fabricerr"
)

// pathError refuses a path that is not canonical: an empty segment ("//"),
// a "." or ".." segment, or no leading slash. Go's mux would redirect
// such a path with an empty 307, POSTs included; Fabric's clients build
// their URLs, so a path like that is a client bug to show, not to follow.
func pathError(r *http.Request) *fabricerr.Error {
	if r.Method == http.MethodConnect {
		return nil // the mux routes CONNECT by host, without cleaning
	}
	p := r.URL.EscapedPath()
	clean := canonicalPath(p)
	if p == clean {
		return nil
	}
	return fabricerr.New(http.StatusBadRequest, fabricerr.InvalidPath,
		"The path %q is not canonical (an empty segment, a '.' or '..' segment, or no leading '/'); send %q", p, clean)
}

// canonicalPath is p as Go's mux would redirect it: cleaned, rooted, and
// keeping a trailing slash.
func canonicalPath(p string) string {
	if p == "" {
		return "/"
	}
	if p[0] != '/' {
		p = "/" + p
	}
	clean := path.Clean(p)
	if strings.HasSuffix(p, "/") && clean != "/" {
		clean += "/"
	}
	return clean
}

// fail renders err for the caller: an anticipated *fabricerr.Error as it
// is, anything else as a generic 500. A 5xx is logged with its cause, and
// its message is kept from naming the server's directories.
func (a *API) fail(w http.ResponseWriter, r *http.Request, requestID string, err error) {
	fabricerr.Write(w, requestID, a.public(r, requestID, err))
}

// public is err as it may be shown to a client (see fail).
func (a *API) public(r *http.Request, requestID string, err error) *fabricerr.Error {
	fe := fabricerr.As(err)
	if fe.Status < 500 {
		return fe
	}
	a.cfg.Logger.Error("request failed", "method", r.Method, "path", r.URL.Path, "requestId", requestID, "err", err)
	out := *fe
	out.Message = a.scrub(fe.Message)
	out.MoreDetails = nil
	for _, d := range fe.MoreDetails {
		d.Message = a.scrub(d.Message)
		out.MoreDetails = append(out.MoreDetails, d)
	}
	return &out
}

// scrub keeps the server's directories out of msg (control.Plane.Scrub).
func (a *API) scrub(msg string) string { return a.plane.Scrub(msg) }
