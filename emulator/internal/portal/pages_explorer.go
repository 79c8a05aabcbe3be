package portal

import (
	"encoding/json"
	"net/http"
	"net/url"

	"github.com/fabrictest/fabrictest/emulator/wire"
)

// explorerView is the data explorer's page: a send form and a peek of a
// stream.
type explorerView struct {
	Item     item
	Base     string // the Eventstream page's path
	Streams  []node
	Query    peekQuery
	Records  []previewRecord
	Download string // the JSON download of what is shown
	Peeked   bool   // the peek form was sent
	PeekErr  string
	NoBroker bool
}

// explorerPage serves GET …/eventstreams/{id}/explorer: the send form and,
// when ?stream= is given, the records of that stream the peek form asks.
// The principal's right to read a stream is the resolve route's (Viewer
// and up), asked before the broker is read.
func (p *Portal) explorerPage(r *http.Request, principal string) (page, error) {
	api := eventstreamAPI(r)
	base := Prefix + "workspaces/" + url.PathEscape(r.PathValue("ws")) + "/eventstreams/" + url.PathEscape(r.PathValue("id"))
	v := explorerView{Base: base, NoBroker: p.cfg.Broker == nil || !p.cfg.Broker.Enabled()}
	if err := p.get(r, principal, api, &v.Item); err != nil {
		return page{}, err
	}
	var topo topology
	if err := p.get(r, principal, api+"/topology", &topo); err != nil {
		return page{}, err
	}
	v.Streams = topo.Streams
	q := r.URL.Query()
	pq, err := parsePeek(q)
	v.Query = pq
	if q.Get("stream") != "" && !v.NoBroker {
		v.Peeked = true
		if err == nil {
			v.Records, err = p.peek(r, principal, pq)
		}
		if err != nil {
			v.PeekErr = err.Error()
			if ae, ok := err.(*apiError); ok {
				v.PeekErr = string(ae.Env.ErrorCode) + ": " + ae.Env.Message
			}
		}
		v.Download = base + "/explorer.json?" + q.Encode()
	}
	crumbs := []crumb{home, workspaceCrumb(r, p.workspaceName(r, principal)), {Name: v.Item.DisplayName, URL: base}}
	return page{Template: "explorer", Title: "Data explorer of " + v.Item.DisplayName, Crumbs: crumbs, Body: v}, nil
}

// peek checks the principal may read the stream, then reads it.
func (p *Portal) peek(r *http.Request, principal string, pq peekQuery) ([]previewRecord, error) {
	var res resolved
	path := "/v1/eventstreams/" + url.PathEscape(r.PathValue("id")) + "/sources/" + url.PathEscape(pq.Stream)
	if err := p.get(r, principal, path, &res); err != nil {
		return nil, err
	}
	return p.peekTopic(r.Context(), res.Topic, pq)
}

// explorerJSON serves GET …/explorer.json: what the page shows for the
// same query, as a JSON array to download.
func (p *Portal) explorerJSON(w http.ResponseWriter, r *http.Request) {
	if p.cfg.Broker == nil || !p.cfg.Broker.Enabled() {
		writeJSONError(w, newAPIError(http.StatusNotImplemented, wire.KafkaNotConfigured, "the emulator has no Kafka broker: nothing to read"))
		return
	}
	pq, err := parsePeek(r.URL.Query())
	if err == nil && pq.Stream == "" {
		err = newAPIError(http.StatusBadRequest, wire.InvalidInput, "stream: a stream's id is required")
	}
	var recs []previewRecord
	if err == nil {
		recs, err = p.peek(r, p.principal(r), pq)
	}
	if err != nil {
		if _, ok := err.(*apiError); !ok {
			p.cfg.Logger.Error("portal: download failed", "path", r.URL.Path, "err", err)
		}
		writeJSONError(w, err)
		return
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("Content-Disposition", `attachment; filename="records.json"`)
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	_ = enc.Encode(recs)
}
