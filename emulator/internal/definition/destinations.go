package definition

import (
	"cmp"
	"context"

	"github.com/google/uuid"
)

// destinations plans the destinations: CustomEndpoint ones are checked
// and keep no binding; the others are resolved through r, each with the
// operator chain it reads through.
func (c compiler) destinations(ctx context.Context, p *Plan, r Resolver) error {
	var chains []string
	for _, n := range c.t.Destinations {
		if len(n.Inputs) != 1 {
			return BadNode(n, "inputNodes", "a destination reads exactly one stream or operator")
		}
		chain, err := chainOf(c.t, c.def0, n, c.specs)
		if err != nil {
			return err
		}
		b, bind, err := c.binding(n)
		if err != nil {
			return err
		}
		if !bind {
			continue
		}
		target, err := r.Destination(ctx, b, destinationField(n, b.Type))
		if err != nil {
			return err
		}
		formatted, err := formatChain(n, chain)
		if err != nil {
			return err
		}
		for _, q := range p.Destinations {
			if q.Target.Type == target.Type && q.Target.ItemID == target.ItemID && q.Target.Table == target.Table {
				return BadNode(n, "properties", "destination %q already delivers to the same target", q.Node.Name)
			}
		}
		chains = append(chains, string(formatted))
		p.Destinations = append(p.Destinations, Destination{Node: n, Target: target, Operators: formatted})
	}
	for _, ch := range chains {
		p.OwnOperators = p.OwnOperators || ch != chains[0]
	}
	if !p.OwnOperators && len(chains) > 0 {
		p.Operators = p.Destinations[0].Operators
	}
	if !p.OwnOperators {
		for i := range p.Destinations {
			p.Destinations[i].Operators = nil
		}
	}
	return nil
}

// binding reads destination node n's binding; bind is false for a
// CustomEndpoint destination, which has none.
func (c compiler) binding(n *Node) (b Binding, bind bool, err error) {
	switch {
	case n.Is("CustomEndpoint"):
		n.Raw["type"] = "CustomEndpoint"
		// Its Kafka clients read a topic: the DefaultStream's or a
		// DerivedStream's, not an operator's output.
		if in := c.t.ByName[n.Inputs[0]]; in.Kind == "operator" {
			return b, false, BadNode(n, "inputNodes", "it reads operator %q, which has no topic of its own; put a DerivedStream between %q and this CustomEndpoint destination (its clients then read the DerivedStream's topic), or read the DefaultStream %q", in.Name, in.Name, c.def0.Name)
		}
		return b, false, nil
	case n.Is("Lakehouse"):
		n.Raw["type"] = "Lakehouse"
		b = Binding{Type: "Lakehouse", Table: cmp.Or(n.Str("deltaTable"), n.Str("tableName"), n.Str("table"))}
		if b.Batching, err = batchSettings(n); err != nil {
			return b, false, err
		}
	case n.Is("Eventhouse"):
		n.Raw["type"] = "Eventhouse"
		if b, err = c.eventhouse(n); err != nil {
			return b, false, err
		}
	case n.Is("Activator"), n.Is("Reflex"):
		b = Binding{Type: "Reflex"}
	case n.Is("Notebook"):
		return b, false, refuse(n, "notebooks read the stream themselves (GET /v1/eventstreams/{id}/sources/{datasourceId} resolves it for Spark); remove the node")
	default:
		return b, false, BadNode(n, "type", "%q is not one of Lakehouse, Eventhouse, Activator, CustomEndpoint, Notebook", n.Type)
	}
	b.ItemID = n.Str("itemId")
	if ws := n.Str("workspaceId"); ws != "" && ws != uuid.Nil.String() {
		b.WorkspaceID = ws
	}
	if _, ok := n.Props[ExtensionKey]; ok && b.Type == "Reflex" {
		return b, false, BadNode(n, "properties."+ExtensionKey, "the emulator's delivery settings apply to Lakehouse and Eventhouse destinations only")
	}
	if b.Policy, err = extension(n); err != nil {
		return b, false, err
	}
	return b, true, nil
}

// destinationField names a binding's fields as node n of binding type typ
// names them.
func destinationField(n *Node, typ string) func(string) string {
	names := map[string]string{"type": "type", "itemId": "properties.itemId", "workspaceId": "properties.workspaceId", "database": "properties.databaseName",
		"table":         map[string]string{"Lakehouse": "properties.deltaTable", "Eventhouse": "properties.tableName", "Reflex": "properties"}[typ],
		"ingestionMode": "properties.dataIngestionMode",
		"minimumRows":   "properties.minimumRows", "maximumDurationInSeconds": "properties.maximumDurationInSeconds"}
	if n.Str("databaseName") == "" && n.Str("kqlDatabaseId") != "" {
		names["database"] = "properties.kqlDatabaseId" // DirectIngestion's
	}
	for _, f := range extensionFields {
		names[f] = "properties." + ExtensionKey + "." + f
	}
	return func(f string) string { return "eventstream.json " + n.Path + "." + names[f] }
}
