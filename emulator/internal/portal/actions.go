package portal

import (
	"net/http"
	"net/url"
	"time"

	"github.com/fabrictest/fabrictest/emulator/wire"
)

// action serves the recovery buttons: POST …/eventstreams/{id}/pause or
// resume, the same under …/{sources|destinations}/{node}/, and
// …/destinations/{node}/delete. It calls the API's route as the principal,
// then returns to the Eventstream's page, which says once what was done or,
// when the API refused (a Viewer pausing, a bad custom time), the API's
// errorCode and message.
func (p *Portal) action(w http.ResponseWriter, r *http.Request) {
	principal := p.principal(r)
	target := Prefix + "workspaces/" + url.PathEscape(r.PathValue("ws")) + "/eventstreams/" + url.PathEscape(r.PathValue("id"))
	notice, err := p.act(r, principal)
	if err != nil {
		ae, ok := err.(*apiError)
		if !ok {
			p.cfg.Logger.Error("portal: action failed", "path", r.URL.Path, "err", err)
			ae = newAPIError(http.StatusInternalServerError, wire.UnknownError, "the portal could not do this; the emulator's log has the cause")
		}
		setFlash(w, flash{Status: ae.Status, Code: string(ae.Env.ErrorCode), Text: ae.Env.Message})
	} else {
		setFlash(w, flash{Notice: notice})
	}
	http.Redirect(w, r, target, http.StatusSeeOther)
}

// act does the request's action through the API and says what it did.
func (p *Portal) act(r *http.Request, principal string) (string, error) {
	act, nodes, id := r.PathValue("action"), r.PathValue("nodes"), r.PathValue("node")
	path := eventstreamAPI(r)
	what := "Eventstream"
	switch {
	case act != "pause" && act != "resume" && act != "delete":
		return "", newAPIError(http.StatusNotFound, wire.EndpointNotFound, "no portal action %q", act)
	case nodes == "" && act == "delete":
		return "", newAPIError(http.StatusNotFound, wire.EndpointNotFound, "the portal deletes destinations, not Eventstreams")
	case nodes != "" && nodes != "sources" && nodes != "destinations":
		return "", newAPIError(http.StatusNotFound, wire.EndpointNotFound, "only sources and destinations pause, not %q", nodes)
	case nodes == "sources" && act == "delete":
		return "", newAPIError(http.StatusNotFound, wire.EndpointNotFound, "the portal deletes destinations only; a source is removed by updating the definition")
	case nodes != "":
		path += "/" + nodes + "/" + url.PathEscape(id)
		what = p.nodeLabel(r, principal, nodes, id)
	}
	switch act {
	case "delete":
		return what + " deleted.", p.call(r, principal, http.MethodDelete, path, nil, nil)
	case "resume":
		body, err := resumeBody(r)
		if err != nil {
			return "", err
		}
		return what + " resumed.", p.call(r, principal, http.MethodPost, path+"/resume", body, nil)
	}
	return what + " paused.", p.call(r, principal, http.MethodPost, path+"/pause", nil, nil)
}

// resumeBody is the resume route's body from the form: startType (When
// last stopped by default) and, for CustomTime, customTime as the
// datetime-local input sends it (read as UTC) or RFC 3339.
func resumeBody(r *http.Request) (map[string]string, error) {
	start := r.FormValue("startType")
	if start == "" {
		start = "WhenLastStopped"
	}
	body := map[string]string{"startType": start}
	if start != "CustomTime" {
		return body, nil
	}
	raw := r.FormValue("customTime")
	for _, layout := range []string{time.RFC3339, "2006-01-02T15:04:05", "2006-01-02T15:04"} {
		if at, err := time.Parse(layout, raw); err == nil {
			body["customStartDateTime"] = at.UTC().Format(time.RFC3339)
			return body, nil
		}
	}
	return nil, newAPIError(http.StatusBadRequest, wire.InvalidInput, "customTime: want a UTC time such as 2026-01-02T15:04, got %q", raw)
}

// nodeLabel names a source or destination as the topology does ("Source
// app", "Destination lake"); an id the topology lacks is named by kind only,
// so that nothing from the URL is shown.
func (p *Portal) nodeLabel(r *http.Request, principal, nodes, id string) string {
	kind := map[string]string{"sources": "Source", "destinations": "Destination"}[nodes]
	var topo topology
	if p.get(r, principal, eventstreamAPI(r)+"/topology", &topo) != nil {
		return kind
	}
	for _, n := range append(topo.Sources, topo.Destinations...) {
		if n.ID == id {
			return kind + " " + n.Name
		}
	}
	return kind
}
