package onelake

import (
	"net/http"
	"net/url"
	"strings"

	"github.com/fabrictest/fabrictest/emulator/internal/store"
)

// dialect is the API a request speaks: it decides the error body's shape.
type dialect int

const (
	blobDialect dialect = iota
	dfsDialect
)

// op is one request in flight.
type op struct {
	h       *Handler
	w       http.ResponseWriter
	r       *http.Request
	id      string
	dialect dialect

	principal string
	ws        store.Workspace
	role      store.Role
	item      store.Item
	itemSeg   string   // the item as the caller named it (GUID or name.Type)
	rel       []string // the path under the item, validated segments
}

// dialectOf tells DFS requests (resource=, action=, rename, DFS listing)
// from Blob ones; GET and HEAD of a file are the same in both.
func dialectOf(r *http.Request) dialect {
	q := r.URL.Query()
	if q.Has("resource") || q.Has("action") || q.Has("directory") || r.Header.Get("x-ms-rename-source") != "" {
		return dfsDialect
	}
	if r.Method == http.MethodDelete && q.Has("recursive") {
		return dfsDialect
	}
	return blobDialect
}

// segments splits the path after Prefix into validated segments. The path
// is percent-decoded first, as Azure Storage does, so an encoded slash
// separates and an encoded dot-dot is a dot-dot: both are refused.
func segments(escaped string) ([]string, error) {
	raw := strings.TrimPrefix(escaped, strings.TrimSuffix(Prefix, "/"))
	raw = strings.TrimPrefix(raw, "/")
	dec, err := url.PathUnescape(raw)
	if err != nil {
		return nil, invalidURI("the path %q is not validly percent-encoded", escaped)
	}
	dec = strings.TrimSuffix(dec, "/")
	if dec == "" {
		return nil, invalidURI("name a workspace: /onelake/{workspace}/{item}/{path}")
	}
	parts := strings.Split(dec, "/")
	for _, p := range parts {
		if err := validSegment(p); err != nil {
			return nil, err
		}
	}
	return parts, nil
}

// validSegment refuses what could reach outside an item's directory or
// that no filesystem holds: empty, ".", "..", NUL, backslashes, over-long.
func validSegment(p string) error {
	switch {
	case p == "" || p == "." || p == "..":
		return invalidURI("the path has an empty, '.' or '..' segment")
	case strings.ContainsAny(p, "\x00\\"):
		return invalidURI("a path segment holds a NUL or a backslash")
	case len(p) > 255:
		return invalidURI("a path segment is longer than 255 bytes")
	}
	return nil
}

// splitPath validates a path given in a query parameter or header
// (directory=, prefix=, x-ms-rename-source) into segments.
func splitPath(p string) ([]string, error) {
	p = strings.Trim(p, "/")
	if p == "" {
		return nil, nil
	}
	parts := strings.Split(p, "/")
	for _, s := range parts {
		if err := validSegment(s); err != nil {
			return nil, err
		}
	}
	return parts, nil
}

// relPath is the slash path of o.rel (the item's root is ".").
func (o *op) relPath() string {
	if len(o.rel) == 0 {
		return "."
	}
	return strings.Join(o.rel, "/")
}

// name is the caller's name of o.rel inside the workspace: item/path.
func (o *op) name(rel string) string {
	if rel == "." || rel == "" {
		return o.itemSeg
	}
	return o.itemSeg + "/" + rel
}
