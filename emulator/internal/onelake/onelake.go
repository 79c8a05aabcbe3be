// Package onelake serves OneLake's storage surface on the emulator's
// listener, path-style: /onelake/{workspace}/{item}/{path}. It speaks the
// two dialects OneLake speaks (ADLS Gen2 "DFS" and Blob) as far as delta-rs
// (object_store), azure-storage-file-datalake and azure-storage-blob use
// them, over the files of <Root>/<workspaceId>/<itemId>.
//
// Microsoft: "OneLake access and APIs" and "Azure Data Lake Storage and
// Blob APIs in OneLake" (learn.microsoft.com/fabric/onelake/onelake-access-api):
// the workspace is the container (filesystem), paths start with the item
// (by GUID or "name.Type"), tokens carry the storage audience.
package onelake

import (
	"context"
	"log/slog"
	"net/http"
	"sync"

	"github.com/fabrictest/fabrictest/emulator/internal/store"
	"github.com/google/uuid"
)

// Prefix is where the surface is mounted on the emulator's listener.
const Prefix = "/onelake/"

// Version is the x-ms-version this surface answers with (the Blob/DFS
// service version current Azure SDKs send).
const Version = "2023-11-03"

// Config is what the surface needs from the emulator.
type Config struct {
	// Root is the OneLake directory: <Root>/<workspaceId>/<itemId>/Tables|Files.
	Root string
	// Store resolves workspaces, items and role assignments.
	Store *store.Store
	// Verify checks an Authorization header value for the storage
	// audience and returns the caller's principal (oid).
	Verify func(ctx context.Context, authorization string) (string, error)
	// Logger logs refused tokens and failures (default: discard).
	Logger *slog.Logger
	// Log, when set, is called with every request's method and URL: the
	// record tests use to list what a client sends.
	Log func(method, url string)
	// MaxBody caps a request body (default 256 MiB).
	MaxBody int64
}

// Handler is the OneLake http.Handler.
type Handler struct {
	cfg Config

	mu      sync.Mutex        // guards pending and blocks, and serialises commits
	pending map[string][]byte // DFS appends not yet flushed, by file
	blocks  map[string][]byte // Blob blocks not yet committed, by file + "\x00" + block id
}

// New returns the handler for cfg.
func New(cfg Config) *Handler {
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.MaxBody <= 0 {
		cfg.MaxBody = 256 << 20
	}
	return &Handler{cfg: cfg, pending: map[string][]byte{}, blocks: map[string][]byte{}}
}

// ServeHTTP stamps Azure Storage's headers, authenticates, resolves the
// workspace and item, checks the caller's role and runs the operation.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	id := w.Header().Get("x-ms-request-id")
	if id == "" {
		id = uuid.NewString()
		w.Header().Set("x-ms-request-id", id)
	}
	w.Header().Set("x-ms-version", Version)
	w.Header().Del("Content-Type")
	if h.cfg.Log != nil {
		h.cfg.Log(r.Method, r.URL.RequestURI())
	}
	sw := &statusWriter{ResponseWriter: w, status: http.StatusOK}
	op := &op{h: h, w: sw, r: r, id: id, dialect: dialectOf(r)}
	if err := h.serve(op); err != nil {
		op.fail(err)
	}
	h.cfg.Logger.Debug("onelake request", "method", r.Method, "url", r.URL.RequestURI(), "status", sw.status,
		"ifNoneMatch", r.Header.Get("If-None-Match"), "range", r.Header.Get("Range"))
}

// statusWriter remembers the status a handler answered, for the log.
type statusWriter struct {
	http.ResponseWriter
	status int
}

// WriteHeader records the status and passes it on.
func (s *statusWriter) WriteHeader(code int) {
	s.status = code
	s.ResponseWriter.WriteHeader(code)
}
