package portal

import (
	"github.com/fabrictest/fabrictest/emulator/wire"
	"net/http"
	"net/url"
)

// action serves the pause and resume buttons: POST …/eventstreams/{id}/pause
// or resume, and the same under …/{sources|destinations}/{node}/. It calls
// the API's route of the same name as the principal, then returns to the
// Eventstream's page, which says what was done (?paused= or ?resumed= the
// node's id, or "eventstream"); a refusal (a Viewer pausing) is shown
// as the API answered it.
func (p *Portal) action(w http.ResponseWriter, r *http.Request) {
	act := r.PathValue("action")
	if act != "pause" && act != "resume" {
		p.fail(w, r, newAPIError(http.StatusNotFound, wire.EndpointNotFound, "no portal action %q", act))
		return
	}
	path := eventstreamAPI(r)
	what := "eventstream"
	if nodes := r.PathValue("nodes"); nodes != "" {
		if nodes != "sources" && nodes != "destinations" {
			p.fail(w, r, newAPIError(http.StatusNotFound, wire.EndpointNotFound, "only sources and destinations pause, not %q", nodes))
			return
		}
		path += "/" + nodes + "/" + url.PathEscape(r.PathValue("node"))
		what = r.PathValue("node")
	}
	var body any
	if act == "resume" {
		start := r.FormValue("startType")
		if start == "" {
			start = "WhenLastStopped"
		}
		body = map[string]string{"startType": start}
	}
	if err := p.call(r, p.principal(r), http.MethodPost, path+"/"+act, body, nil); err != nil {
		p.fail(w, r, err)
		return
	}
	done := map[string]string{"pause": "paused", "resume": "resumed"}[act]
	target := Prefix + "workspaces/" + url.PathEscape(r.PathValue("ws")) + "/eventstreams/" + url.PathEscape(r.PathValue("id"))
	http.Redirect(w, r, target+"?"+done+"="+url.QueryEscape(what), http.StatusSeeOther)
}
