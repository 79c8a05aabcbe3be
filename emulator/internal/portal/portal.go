package portal

import (
	"embed"
	"html/template"
	"io/fs"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/fabrictest/fabrictest/emulator/internal/broker"
	"github.com/fabrictest/fabrictest/emulator/wire"
)

// Prefix is the path the portal is served under.
const Prefix = "/_emulator/portal/"

//go:embed templates/*.html
var templateFS embed.FS

//go:embed static
var staticFS embed.FS

// Config is what the portal needs from the emulator that hosts it.
type Config struct {
	// API is the emulator's HTTP API; the portal calls it in-process.
	API http.Handler
	// Mint returns a bearer token for principal that API accepts.
	Mint func(principal string) (string, error)
	// DefaultPrincipal is who the portal acts as until the viewer picks
	// another.
	DefaultPrincipal string
	// Broker is read for the live preview of a stream (nil or disabled:
	// no preview).
	Broker *broker.Broker
	// Remote lets non-loopback callers in (--remote-tokens).
	Remote bool
	// Logger gets the portal's failures (default: discarded).
	Logger *slog.Logger
	// TakeRows reads an Eventhouse table's first rows (nil: no Kusto
	// engine is attached, and the Eventhouse page says so).
	TakeRows TakeRows
}

// Portal is the portal's http.Handler.
type Portal struct {
	cfg    Config
	mux    *http.ServeMux
	pages  map[string]*template.Template
	static http.Handler
	hist   *history // the figures read lately, for the cards' charts
	toks   *tokens  // minted tokens, reused for a minute

	done      chan struct{} // closed by Close: live previews end
	closeOnce sync.Once
}

// New returns the portal for cfg.
func New(cfg Config) (*Portal, error) {
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	pages, err := parsePages()
	if err != nil {
		return nil, err
	}
	sub, err := fs.Sub(staticFS, "static")
	if err != nil {
		return nil, err
	}
	p := &Portal{cfg: cfg, mux: http.NewServeMux(), pages: pages,
		static: http.StripPrefix(Prefix+"static/", http.FileServerFS(sub)), done: make(chan struct{}),
		hist: newHistory(time.Now), toks: &tokens{now: time.Now, mint: cfg.Mint, last: map[string]minted{}}}
	p.routes()
	return p, nil
}

// Close ends every live preview: an open stream would otherwise hold the
// server's graceful shutdown until its deadline. Pages are still served.
func (p *Portal) Close() { p.closeOnce.Do(func() { close(p.done) }) }

// Owns reports whether path is the portal's.
func Owns(path string) bool {
	return path+"/" == Prefix || strings.HasPrefix(path, Prefix)
}

// routes registers every page, the preview stream and the actions.
func (p *Portal) routes() {
	p.mux.HandleFunc("GET "+Prefix+"{$}", p.page(p.workspacesPage))
	p.mux.HandleFunc("GET "+Prefix+"workspaces/{ws}", p.page(p.workspacePage))
	p.mux.HandleFunc("GET "+Prefix+"workspaces/{ws}/eventstreams/{id}", p.page(p.eventstreamPage))
	p.mux.HandleFunc("GET "+Prefix+"workspaces/{ws}/eventstreams/{id}/status", p.statusJSON)
	p.mux.HandleFunc("GET "+Prefix+"workspaces/{ws}/eventstreams/{id}/preview/{ds}", p.preview)
	p.mux.HandleFunc("GET "+Prefix+"workspaces/{ws}/eventstreams/{id}/{nodes}/{node}/connection", p.page(p.connectionPage))
	p.mux.HandleFunc("POST "+Prefix+"workspaces/{ws}/eventstreams/{id}/{action}", p.action)
	p.mux.HandleFunc("POST "+Prefix+"workspaces/{ws}/eventstreams/{id}/{nodes}/{node}/{action}", p.action)
	p.mux.HandleFunc("GET "+Prefix+"workspaces/{ws}/eventstreams/{id}/logs", p.page(p.logsPage))
	p.mux.HandleFunc("GET "+Prefix+"workspaces/{ws}/eventstreams/{id}/explorer", p.page(p.explorerPage))
	p.mux.HandleFunc("GET "+Prefix+"workspaces/{ws}/eventstreams/{id}/explorer.json", p.explorerJSON)
	p.mux.HandleFunc("POST "+Prefix+"workspaces/{ws}/eventstreams/{id}/send", p.sendEvents)
	p.mux.HandleFunc("GET "+Prefix+"workspaces/{ws}/lakehouses/{id}", p.page(p.lakehousePage))
	p.mux.HandleFunc("GET "+Prefix+"workspaces/{ws}/lakehouses/{id}/tables/{table}", p.page(p.tablePage))
	p.mux.HandleFunc("GET "+Prefix+"workspaces/{ws}/reflexes/{id}", p.page(p.reflexPage))
	p.mux.HandleFunc("GET "+Prefix+"workspaces/{ws}/eventhouses/{id}", p.page(p.eventhousePage))
	p.mux.HandleFunc("POST "+Prefix+"principal", p.choosePrincipal)
	p.mux.Handle("GET "+Prefix+"static/", p.static)
	p.mux.HandleFunc(Prefix, func(w http.ResponseWriter, r *http.Request) {
		p.fail(w, r, newAPIError(http.StatusNotFound, wire.EndpointNotFound, "the portal has no page %s", r.URL.Path))
	})
}

// ServeHTTP answers the portal's routes to the callers it lets in.
func (p *Portal) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path+"/" == Prefix {
		http.Redirect(w, r, Prefix, http.StatusFound)
		return
	}
	if err := p.admit(r); err != nil {
		p.fail(w, r, err)
		return
	}
	setSecurityHeaders(w.Header())
	p.mux.ServeHTTP(w, r)
}
