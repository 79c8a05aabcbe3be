package portal

import (
	"bytes"
	"errors"
	"fmt"
	"github.com/fabrictest/fabrictest/emulator/wire"
	"html/template"
	"net/http"
	"net/url"
	"strings"

	"github.com/google/uuid"
)

// principalCookie keeps the principal the viewer acts as.
const principalCookie = "fabric-portal-principal"

// view is what every page template gets: the layout's fields and the
// page's own data in Body.
type view struct {
	Title     string
	Principal string
	Crumbs    []crumb
	Notice    string
	Flash     *flash // what the last POST did, or the API's refusal
	Body      any
}

// crumb is one link of the breadcrumb trail.
type crumb struct{ Name, URL string }

// handlerFunc renders one page: its template name, title, trail and data.
type handlerFunc func(r *http.Request, principal string) (page, error)

// page is what a handlerFunc answers.
type page struct {
	Template string
	Title    string
	Crumbs   []crumb
	Notice   string // what the viewer's last action did
	Body     any
}

// page adapts a handlerFunc to http: it finds the principal, renders the
// page in the layout, and an error as the error page.
func (p *Portal) page(fn handlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		principal := p.principal(r)
		pg, err := fn(r, principal)
		if err != nil {
			p.fail(w, r, err)
			return
		}
		v := view{Title: pg.Title, Principal: principal, Crumbs: pg.Crumbs, Notice: pg.Notice, Flash: takeFlash(w, r), Body: pg.Body}
		p.render(w, http.StatusOK, pg.Template, v)
	}
}

// render executes template name into a buffer first, so that a failure
// answers a whole error page rather than half a page.
func (p *Portal) render(w http.ResponseWriter, status int, name string, v view) {
	var buf bytes.Buffer
	if err := p.pages[name].ExecuteTemplate(&buf, "layout", v); err != nil {
		p.cfg.Logger.Error("portal: render page", "page", name, "err", err)
		http.Error(w, "the portal could not render this page", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	_, _ = w.Write(buf.Bytes())
}

// fail answers err as the error page: the API's status, errorCode and
// message when the API refused, else a generic 500 (the cause is logged).
func (p *Portal) fail(w http.ResponseWriter, r *http.Request, err error) {
	var ae *apiError
	if !errors.As(err, &ae) {
		p.cfg.Logger.Error("portal: page failed", "path", r.URL.Path, "err", err)
		ae = newAPIError(http.StatusInternalServerError, wire.UnknownError, "the portal could not answer; the emulator's log has the cause")
	}
	setSecurityHeaders(w.Header())
	p.render(w, ae.Status, "error", view{Title: fmt.Sprintf("%d %s", ae.Status, ae.Env.ErrorCode), Principal: p.principal(r), Crumbs: []crumb{home}, Body: ae})
}

// principal is who the viewer acts as: the cookie's GUID, else the default.
func (p *Portal) principal(r *http.Request) string {
	if c, err := r.Cookie(principalCookie); err == nil {
		if id, err := uuid.Parse(c.Value); err == nil {
			return id.String()
		}
	}
	return p.cfg.DefaultPrincipal
}

// choosePrincipal serves POST principal: act as another principal (a
// GUID; empty goes back to the default), then return to the page.
func (p *Portal) choosePrincipal(w http.ResponseWriter, r *http.Request) {
	v := strings.TrimSpace(r.FormValue("principal"))
	c := &http.Cookie{Name: principalCookie, Path: Prefix, HttpOnly: true, SameSite: http.SameSiteStrictMode}
	switch id, err := uuid.Parse(v); {
	case v == "":
		c.MaxAge = -1
	case err != nil:
		p.fail(w, r, newAPIError(http.StatusBadRequest, wire.InvalidInput, "principal: want a GUID, got %q", v))
		return
	default:
		c.Value = id.String()
	}
	http.SetCookie(w, c)
	http.Redirect(w, r, back(r), http.StatusSeeOther)
}

// back is the portal page to return to after a form: the form's "back"
// field when it is a portal path, else the portal's home.
func back(r *http.Request) string {
	b := r.FormValue("back")
	u, err := url.Parse(b)
	if err != nil || u.IsAbs() || u.Host != "" || !strings.HasPrefix(u.Path, Prefix) || strings.Contains(u.Path, "//") {
		return Prefix
	}
	return u.RequestURI()
}

// parsePages parses each page template with the layout.
func parsePages() (map[string]*template.Template, error) {
	names := []string{"workspaces", "workspace", "eventstream", "connection", "logs", "lakehouse", "table", "reflex", "eventhouse", "explorer", "error"}
	out := map[string]*template.Template{}
	for _, n := range names {
		t, err := template.New(n).Funcs(funcs).ParseFS(templateFS, "templates/layout.html", "templates/"+n+".html")
		if err != nil {
			return nil, fmt.Errorf("parse page %s: %w", n, err)
		}
		out[n] = t
	}
	return out, nil
}
