package portal

import (
	"github.com/fabrictest/fabrictest/emulator/wire"
	"net/http"
	"net/url"
)

// connectionView is a CustomEndpoint node's connection page.
type connectionView struct {
	Kind       string // source or destination
	Node       string
	Connection connection
}

// connectionPage shows a CustomEndpoint node's connection strings, as
// the connection route answers them (Contributors and up), with copy
// buttons.
func (p *Portal) connectionPage(r *http.Request, principal string) (page, error) {
	nodes := r.PathValue("nodes")
	if nodes != "sources" && nodes != "destinations" {
		return page{}, newAPIError(http.StatusNotFound, wire.EndpointNotFound, "only sources and destinations have a connection, not %q", nodes)
	}
	v := connectionView{Kind: nodes[:len(nodes)-1], Node: r.PathValue("node")}
	api := eventstreamAPI(r)
	if err := p.get(r, principal, api+"/"+nodes+"/"+url.PathEscape(v.Node)+"/connection", &v.Connection); err != nil {
		return page{}, err
	}
	var es item
	_ = p.get(r, principal, api, &es)
	name := v.Node
	var topo topology
	if p.get(r, principal, api+"/topology", &topo) == nil {
		for _, n := range append(topo.Sources, topo.Destinations...) {
			if n.ID == v.Node {
				name = n.Name
			}
		}
	}
	crumbs := []crumb{home, workspaceCrumb(r, p.workspaceName(r, principal)),
		{Name: es.DisplayName, URL: Prefix + "workspaces/" + url.PathEscape(r.PathValue("ws")) + "/eventstreams/" + url.PathEscape(r.PathValue("id"))}}
	return page{Template: "connection", Title: "Connection of " + v.Kind + " " + name, Crumbs: crumbs, Body: v}, nil
}
