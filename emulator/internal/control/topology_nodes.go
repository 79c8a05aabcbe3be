package control

import (
	"context"
	"strings"

	"github.com/fabrictest/fabrictest/emulator/internal/fabricerr"
	"github.com/fabrictest/fabrictest/emulator/internal/store"
	"github.com/fabrictest/fabrictest/emulator/wire"
)

// TopologyNode finds node id in es's rendered topology, with its status:
// among the sources, or the destinations when list is "destinations".
// what names the node in the 404 EntityNotFound it answers otherwise.
func (p *Plane) TopologyNode(ctx context.Context, es store.Item, list, id, what string) (wire.Node, error) {
	t, err := p.Topology(ctx, es, true)
	if err != nil {
		return wire.Node{}, err
	}
	nodes := t.Sources
	if list == "destinations" {
		nodes = t.Destinations
	}
	for _, n := range nodes {
		if n.ID != "" && strings.EqualFold(n.ID, id) {
			return n, nil
		}
	}
	return wire.Node{}, fabricerr.NotFound(fabricerr.EntityNotFound, what, id)
}

// DestinationNode is destination ref as Fabric's DestinationResponse
// shows it; a binding adds the emulator's view (workspaceId, itemId,
// table, database, delivery) beside it. who needs Viewer.
func (p *Plane) DestinationNode(ctx context.Context, who Caller, ref NodeRef) (wire.DestinationNode, error) {
	es, err := p.eventstream(ctx, who, ref.Eventstream, store.RoleViewer)
	if err != nil {
		return wire.DestinationNode{}, err
	}
	node, err := p.TopologyNode(ctx, es, "destinations", ref.Node, "Destination")
	if err != nil {
		if d, derr := p.cfg.Store.GetDestination(ctx, ref.Node); derr != nil || d.EventstreamID != es.ID || Internal(d) {
			return wire.DestinationNode{}, fabricerr.NotFound(wire.DestinationNotFound, "Destination", ref.Node)
		}
		return wire.DestinationNode{}, err
	}
	n := wire.DestinationNode{Node: node}
	if d, err := p.cfg.Store.GetDestination(ctx, ref.Node); err == nil && d.EventstreamID == es.ID {
		r := p.DestinationView(d)
		n.WorkspaceID, n.ItemID, n.Table, n.Database, n.Delivery = r.WorkspaceID, r.ItemID, r.Table, r.Database, r.Delivery
		n.ErrorPolicy, n.DeadLetterTopic, n.SchemaMode = r.ErrorPolicy, r.DeadLetterTopic, r.SchemaMode
	}
	return n, nil
}
