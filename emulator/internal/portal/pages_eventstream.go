package portal

import (
	"encoding/json"
	"fmt"
	"github.com/fabrictest/fabrictest/emulator/wire"
	"net/http"
	"net/url"
	"sort"
)

// nodeView is one node of the topology as the page shows it.
type nodeView struct {
	node
	Kind     string // sources, streams, operators, destinations
	Metrics  []metric
	Errors   []recentError // the node's last runtime errors, newest first
	Pausable bool          // sources and destinations have pause and resume
	Bound    bool          // a destination binding, which Delete removes
	Endpoint bool          // a CustomEndpoint: its connection has a page
	Anchor   string        // the id of its card, which the graph links to
	Spark    *spark        // its small chart (nil until two readings)
}

// metric is one data-insights figure.
type metric struct {
	Name  string
	Value int64
}

// column is one column of the topology canvas.
type column struct {
	Title string
	Nodes []nodeView
}

// eventstreamView is the Eventstream page's data.
type eventstreamView struct {
	Item     item
	Base     string // the page's own path
	Columns  []column
	Streams  []node
	Graph    graphView
	Preview  bool   // the emulator has a broker to preview from
	Insights string // why data insights are missing ("" when present)
}

// eventstreamPage shows an Eventstream's topology with status, metrics,
// pause and resume, and the live preview of its streams.
func (p *Portal) eventstreamPage(r *http.Request, principal string) (page, error) {
	api := eventstreamAPI(r)
	v := eventstreamView{Base: r.URL.Path, Preview: p.cfg.Broker != nil && p.cfg.Broker.Enabled()}
	if err := p.get(r, principal, api, &v.Item); err != nil {
		return page{}, err
	}
	var topo topology
	if err := p.get(r, principal, api+"/topology", &topo); err != nil {
		return page{}, err
	}
	metrics, err := p.metricsByNode(r, principal, api)
	if err != nil {
		v.Insights = err.Error()
	}
	recent := p.recentErrors(r, principal, api)
	bound := p.bindings(r, principal, api)
	v.Streams = topo.Streams
	for _, c := range []struct {
		title, kind string
		nodes       []node
	}{{"Sources", "sources", topo.Sources}, {"Streams", "streams", topo.Streams},
		{"Operators", "operators", topo.Operators}, {"Destinations", "destinations", topo.Destinations}} {
		col := column{Title: c.title}
		for i, n := range c.nodes {
			col.Nodes = append(col.Nodes, nodeView{node: n, Kind: c.kind, Metrics: metrics[n.ID], Errors: recent[n.ID],
				Anchor: fmt.Sprintf("node-%s-%d", c.kind, i), Spark: p.hist.chart(n.ID, chartMetrics(c.kind)...),
				Pausable: c.kind == "sources" || c.kind == "destinations", Bound: c.kind == "destinations" && bound[n.ID],
				Endpoint: n.Type == "CustomEndpoint" && (c.kind == "sources" || c.kind == "destinations")})
		}
		v.Columns = append(v.Columns, col)
	}
	v.Graph = buildGraph(v.Columns)
	crumbs := []crumb{home, workspaceCrumb(r, p.workspaceName(r, principal))}
	return page{Template: "eventstream", Title: v.Item.DisplayName, Crumbs: crumbs, Body: v}, nil
}

// bindings are the ids of the Eventstream's destination bindings, which
// the bindings route deletes; a destination only its definition holds (a
// custom endpoint, a DerivedStream) goes by updating the definition. An
// answer the portal cannot read leaves no Delete button.
func (p *Portal) bindings(r *http.Request, principal, api string) map[string]bool {
	var l list[wire.Destination]
	if err := p.get(r, principal, api+"/destinations", &l); err != nil {
		return nil
	}
	out := make(map[string]bool, len(l.Value))
	for _, d := range l.Value {
		out[d.ID] = true
	}
	return out
}

// eventstreamAPI is the API path of the request's Eventstream.
func eventstreamAPI(r *http.Request) string {
	return "/v1/workspaces/" + url.PathEscape(r.PathValue("ws")) + "/eventstreams/" + url.PathEscape(r.PathValue("id"))
}

// metricsByNode asks the metrics route and sorts each node's figures by name.
func (p *Portal) metricsByNode(r *http.Request, principal, api string) (map[string][]metric, error) {
	var m metricsAnswer
	if err := p.get(r, principal, api+"/metrics", &m); err != nil {
		return nil, err
	}
	out := map[string][]metric{}
	for _, n := range m.Nodes {
		ms := make([]metric, 0, len(n.Metrics))
		for k, v := range n.Metrics {
			ms = append(ms, metric{Name: k, Value: v})
		}
		sort.Slice(ms, func(i, j int) bool { return ms[i].Name < ms[j].Name })
		out[n.ID] = ms
		p.hist.record(n.ID, ms)
	}
	return out, nil
}

// nodeStatus is one node's entry in the status JSON the page's script polls.
type nodeStatus struct {
	ID           string          `json:"id"`
	Status       string          `json:"status"`
	Error        *wire.NodeError `json:"error,omitempty"`
	Metrics      []metric        `json:"metrics"`
	RecentErrors []recentError   `json:"recentErrors"`
	Spark        *spark          `json:"spark,omitempty"`
}

// statusJSON answers every node's status and metrics, for the page's
// script to refresh them in place.
func (p *Portal) statusJSON(w http.ResponseWriter, r *http.Request) {
	principal := p.principal(r)
	api := eventstreamAPI(r)
	var topo topology
	if err := p.get(r, principal, api+"/topology", &topo); err != nil {
		writeJSONError(w, err)
		return
	}
	metrics, _ := p.metricsByNode(r, principal, api)
	recent := p.recentErrors(r, principal, api)
	out := []nodeStatus{}
	for _, c := range []struct {
		kind  string
		nodes []node
	}{{"sources", topo.Sources}, {"streams", topo.Streams}, {"operators", topo.Operators}, {"destinations", topo.Destinations}} {
		for _, n := range c.nodes {
			out = append(out, nodeStatus{ID: n.ID, Status: n.Status, Error: n.Error, Metrics: metrics[n.ID],
				RecentErrors: orEmpty(recent[n.ID]), Spark: p.hist.chart(n.ID, chartMetrics(c.kind)...)})
		}
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	_ = json.NewEncoder(w).Encode(map[string]any{"nodes": out})
}

// writeJSONError answers err as Fabric's envelope.
func writeJSONError(w http.ResponseWriter, err error) {
	ae, ok := err.(*apiError)
	if !ok {
		ae = newAPIError(http.StatusInternalServerError, wire.UnknownError, "the portal could not answer")
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(ae.Status)
	_ = json.NewEncoder(w).Encode(ae.Env)
}
