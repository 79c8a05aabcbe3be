package definition

import (
	"context"
	"fmt"
	"slices"
	"strings"
)

// sourceRefusals gives the reason a source type is refused when it is
// more specific than the default (SampleData and Kafka-protocol sources
// run: the Resolver says so).
var sourceRefusals = map[string]string{
	"azuresqldbcdc":      cdcRefusal("Azure SQL Database"),
	"azuresqlmidbcdc":    cdcRefusal("Azure SQL Managed Instance"),
	"sqlserveronvmdbcdc": cdcRefusal("SQL Server"),
	"azurecosmosdbcdc":   cdcRefusal("Azure Cosmos DB"),
	"mongodbcdc":         cdcRefusal("MongoDB"),
	"oracledbcdc":        cdcRefusal("Oracle Database"),
}

// cdcRefusal is why a CDC source of a database the emulator has no local
// server for is refused.
func cdcRefusal(db string) string {
	return "change data capture from " + db + " needs a server the emulator cannot run locally; " +
		"the CDC sources that run are PostgreSQLCDC and MySQLCDC (or produce the change events yourself through a CustomEndpoint source)"
}

// defaultSourceRefusal is why a source the emulator does not run is refused.
const defaultSourceRefusal = "it reads from a service the emulator has no connection to; use a CustomEndpoint source and produce the events yourself"

var equalFold = strings.EqualFold

// planSources checks the sources: the types r runs, or CustomEndpoint.
func planSources(ctx context.Context, ws string, t *Topology, r Resolver) error {
	for _, n := range t.Sources {
		run, err := r.Source(ctx, ws, n)
		if err != nil {
			return err
		}
		if !run && !n.Is("CustomEndpoint") {
			reason, ok := sourceRefusals[strings.ToLower(n.Type)]
			if !ok {
				reason = defaultSourceRefusal
			}
			return refuse(n, reason)
		}
		if !run {
			n.Raw["type"] = "CustomEndpoint"
		}
		if len(n.Inputs) > 0 {
			return BadNode(n, "inputNodes", "a source has no inputs")
		}
	}
	return nil
}

// planStreams checks the streams and returns the DefaultStream, adding
// one named defaultName, fed by every source, when the topology has none.
func planStreams(t *Topology, defaultName string) (*Node, error) {
	var def0 *Node
	for _, n := range t.Streams {
		switch {
		case n.Is("DefaultStream"):
			if def0 != nil {
				return nil, BadNode(n, "type", "%q is already the DefaultStream; an Eventstream has one", def0.Name)
			}
			def0 = n
			n.Raw["type"] = "DefaultStream"
			for _, in := range n.Inputs {
				if src := t.ByName[in]; src == nil || src.Kind != "source" {
					return nil, BadNode(n, "inputNodes", "%q is not a source of this definition", in)
				}
			}
		case n.Is("DerivedStream"):
			n.Raw["type"] = "DerivedStream"
			if len(n.Inputs) != 1 {
				return nil, BadNode(n, "inputNodes", "a DerivedStream reads exactly one operator or stream")
			}
		default:
			return nil, BadNode(n, "type", "%q is not DefaultStream or DerivedStream", n.Type)
		}
	}
	if def0 != nil {
		return def0, nil
	}
	if t.ByName[defaultName] != nil {
		return nil, BadNode(t.ByName[defaultName], "name", "the definition has no DefaultStream, and this node has the name the emulator gives it")
	}
	ins := []any{}
	for _, s := range t.Sources {
		ins = append(ins, map[string]any{"name": s.Name})
	}
	def0 = &Node{Kind: "stream", Path: fmt.Sprintf("streams[%d]", len(t.Streams)), Name: defaultName, Type: "DefaultStream", Props: map[string]any{},
		Raw: map[string]any{"name": defaultName, "type": "DefaultStream", "properties": map[string]any{}, "inputNodes": ins}}
	t.Streams = append(t.Streams, def0)
	t.ByName[defaultName] = def0
	return def0, nil
}

// planOperators maps every operator onto a pipeline spec, checked alone,
// and checks the inputs of the operators and streams; it returns the
// specs by node name.
func planOperators(t *Topology, def0 *Node) (map[string][]map[string]any, error) {
	specs := map[string][]map[string]any{}
	for _, n := range t.Operators {
		spec, err := nodeSpecs(t, n)
		if err != nil {
			return nil, err
		}
		if err := checkInputCount(n); err != nil {
			return nil, err
		}
		if err := checkAlone(n, spec); err != nil {
			return nil, err
		}
		specs[n.Name] = spec
	}
	for _, n := range append(slices.Clone(t.Operators), t.Streams...) {
		for _, in := range n.Inputs {
			src := t.ByName[in]
			if src == nil {
				return nil, BadNode(n, "inputNodes", "%q is not a node of this definition", in)
			}
			if n.Kind == "operator" && src.Kind == "source" || n.Kind == "stream" && n != def0 && src.Kind == "source" {
				return nil, BadNode(n, "inputNodes", "%q is a source; sources feed the DefaultStream %q", in, def0.Name)
			}
		}
	}
	return specs, nil
}

// nodeSpecs maps operator node n onto its pipeline specs: a SQL node's
// query may compile into several, the other operators into one.
func nodeSpecs(t *Topology, n *Node) ([]map[string]any, error) {
	if equalFold(n.Type, "SQL") {
		return sqlSpecs(t, n)
	}
	spec, err := operatorSpec(n)
	if err != nil {
		return nil, err
	}
	return []map[string]any{spec}, nil
}
