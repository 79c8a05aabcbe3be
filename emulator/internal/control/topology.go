package control

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/fabrictest/fabrictest/emulator/internal/definition"
	"github.com/fabrictest/fabrictest/emulator/internal/eventstream"
	"github.com/fabrictest/fabrictest/emulator/internal/fabricerr"
	"github.com/fabrictest/fabrictest/emulator/internal/store"
	"github.com/fabrictest/fabrictest/emulator/wire"
)

// The topology: the Eventstream's sources, streams, operators and
// destinations as Fabric's node responses show them, with, when asked,
// each run node's status (Fabric's NodeStatus) and error.

// Runtime statuses (Fabric's NodeStatus) of the topology's nodes.
const (
	StatusRunning = "Running"
	StatusPaused  = "Paused"
	StatusFailed  = "Failed"
	StatusUnknown = "Unknown"
	// StatusWarning is a destination that runs but cannot read its topic
	// from Kafka for now (a broker lost): Fabric's NodeStatus "Warning".
	StatusWarning  = "Warning"
	StatusCreating = "Creating"
)

// fabricDestinationType is the topology's name of a binding's type.
func fabricDestinationType(t string) string {
	if t == "Reflex" {
		return "Activator"
	}
	return t
}

// destinationNode renders a binding the native routes made as a Fabric
// destination node.
func destinationNode(d store.Destination, input string) (wire.Node, error) {
	spec, err := eventstream.SpecOf(d)
	if err != nil {
		return wire.Node{}, err
	}
	props := map[string]any{"workspaceId": d.WorkspaceID, "itemId": d.ItemID}
	switch d.Type {
	case "Lakehouse":
		props["deltaTable"] = d.Target
		if spec.Batching != nil { // Fabric's names for a Lakehouse node's batching
			props["minimumRows"], props["maximumDurationInSeconds"] = spec.Batching.MinimumRows, spec.Batching.MaximumDurationInSeconds
		}
	case "Eventhouse":
		props["dataIngestionMode"], props["databaseName"], props["tableName"] = cmp.Or(spec.IngestionMode, definition.ProcessedIngestion), spec.Database, d.Target
	}
	name := spec.Name
	if name == "" {
		name = fabricDestinationType(d.Type) + "-" + cmp.Or(d.Target, d.ItemID)
	}
	return wire.Node{ID: d.ID, Name: name, Type: fabricDestinationType(d.Type), Properties: props,
		InputNodes: []wire.NodeRef{{Name: input}}}, nil
}

// status of a binding: Paused, Failed (with the drain's error), Running,
// or Unknown when nothing delivers (no broker).
func (p *Plane) destinationStatus(d store.Destination, paused []string) (string, error) {
	if slices.Contains(paused, d.ID) {
		return StatusPaused, nil
	}
	st, ok := p.rt.DrainStatus(d.ID)
	switch {
	case !ok:
		return StatusUnknown, nil
	case st.Err != nil:
		return StatusFailed, st.Err
	}
	if err := p.rt.KafkaHealth(context.Background(), d.ID); err != nil {
		return StatusWarning, kafkaReadError{err}
	}
	return StatusRunning, nil
}

// withStatus is n with its runtime status and, when err is set, its error.
func (p *Plane) withStatus(n wire.Node, status string, err error) wire.Node {
	n.Status = status
	if err != nil {
		n.Error = &wire.NodeError{ErrorCode: wire.DestinationFailed, ErrorMessage: p.Scrub(err.Error())}
		var coded interface{ ErrorCode() string }
		if errors.As(err, &coded) {
			n.Error.ErrorCode = wire.ErrorCode(coded.ErrorCode())
		}
	}
	return n
}

// wireNode is a stored definition node as the topology shows it: the
// fields Fabric's node responses have, as the definition gave them.
func wireNode(raw map[string]any) wire.Node {
	n := wire.Node{}
	n.ID, _ = raw["id"].(string)
	n.Name, _ = raw["name"].(string)
	n.Type, _ = raw["type"].(string)
	n.Properties, _ = raw["properties"].(map[string]any)
	if ins, ok := raw["inputNodes"].([]any); ok {
		n.InputNodes = make([]wire.NodeRef, 0, len(ins))
		for _, in := range ins {
			m, _ := in.(map[string]any)
			name, _ := m["name"].(string)
			n.InputNodes = append(n.InputNodes, wire.NodeRef{Name: name})
		}
	}
	n.InputSchemas, _ = raw["inputSchemas"].([]any)
	return n
}

// Topology renders es's topology: the stored definition's nodes (with
// ids) that still exist, the native bindings, and with status the runtime
// state of sources and destinations.
func (p *Plane) Topology(ctx context.Context, es store.Item, status bool) (wire.Topology, error) {
	props, err := eventstream.Decode(es)
	if err != nil {
		return wire.Topology{}, err
	}
	t, err := props.Topology()
	if err != nil {
		return wire.Topology{}, err
	}
	dests, err := p.cfg.Store.ListDestinations(ctx, es.ID)
	if err != nil {
		return wire.Topology{}, err
	}
	v := &topologyView{out: wire.Topology{CompatibilityLevel: "1.0"}, seen: map[string]bool{}, input: props.Default().Name}
	if t != nil {
		p.definitionNodes(v, t, props, dests, status)
	} else {
		for _, s := range props.Streams {
			v.out.Streams = append(v.out.Streams, wire.Node{ID: s.ID, Name: s.Name, Type: s.Type, Properties: map[string]any{}, InputNodes: []wire.NodeRef{}})
		}
		if v.out.Operators, v.input, err = nativeOperators(props, v.input); err != nil {
			return wire.Topology{}, err
		}
	}
	for _, d := range dests {
		if v.seen[d.ID] || Internal(d) {
			continue
		}
		st, derr := p.destinationStatus(d, props.Paused)
		input := v.input
		if spec, _ := eventstream.SpecOf(d); spec.IngestionMode == definition.DirectIngestion {
			input = props.Default().Name // it reads the stream, not the operators
		}
		node, err := destinationNode(d, input)
		if err != nil {
			return wire.Topology{}, err
		}
		v.out.Destinations = append(v.out.Destinations, p.maybeStatus(node, status, st, derr))
	}
	for _, l := range []*[]wire.Node{&v.out.Sources, &v.out.Streams, &v.out.Operators, &v.out.Destinations} {
		if *l == nil {
			*l = []wire.Node{}
		}
	}
	return v.out, nil
}

// topologyView is a topology being rendered.
type topologyView struct {
	out   wire.Topology
	seen  map[string]bool // destinations rendered from definition nodes
	input string          // the node native bindings read
}

// definitionNodes renders the nodes of the stored definition t into v.
func (p *Plane) definitionNodes(v *topologyView, t *definition.Topology, props eventstream.Model, dests []store.Destination, status bool) {
	byID := map[string]store.Destination{}
	for _, d := range dests {
		byID[d.ID] = d
	}
	if cl, ok := t.Field("compatibilityLevel"); ok {
		v.out.CompatibilityLevel, _ = cl.(string)
	}
	for _, n := range t.Sources {
		st, serr := p.sourceStatus(props, n)
		v.out.Sources = append(v.out.Sources, p.maybeStatus(wireNode(n.Raw), status, st, serr))
	}
	for _, n := range t.Streams {
		v.out.Streams = append(v.out.Streams, wireNode(n.Raw))
	}
	for _, n := range t.Operators {
		v.out.Operators = append(v.out.Operators, wireNode(n.Raw))
	}
	for _, n := range t.Destinations {
		if n.Is("CustomEndpoint") {
			st := StatusRunning
			if props.IsPaused(n.ID()) {
				st = StatusPaused
			}
			v.out.Destinations = append(v.out.Destinations, p.maybeStatus(wireNode(n.Raw), status, st, nil))
			continue
		}
		d, ok := byID[n.ID()]
		if !ok {
			continue // unbound since
		}
		v.seen[d.ID] = true
		st, derr := p.destinationStatus(d, props.Paused)
		v.out.Destinations = append(v.out.Destinations, p.maybeStatus(wireNode(n.Raw), status, st, derr))
	}
}

// nativeOperators renders the native operator chain, each reading the one
// before (the first reads input); it returns the name the destinations read.
func nativeOperators(props eventstream.Model, input string) ([]wire.Node, string, error) {
	chain, err := props.OperatorObjects()
	if err != nil {
		return nil, "", err
	}
	var operators []wire.Node
	for i, op := range chain {
		typ, _ := op["type"].(string)
		name, _ := op["name"].(string)
		if name == "" {
			name = fmt.Sprintf("%s%d", typ, i+1)
		}
		rest := map[string]any{}
		for k, v := range op {
			if k != "type" && k != "name" {
				rest[k] = v
			}
		}
		operators = append(operators, wire.Node{Name: name, Type: typ, Properties: rest, InputNodes: []wire.NodeRef{{Name: input}}})
		input = name
	}
	return operators, input, nil
}

func (p *Plane) maybeStatus(n wire.Node, status bool, st string, err error) wire.Node {
	if !status {
		return n
	}
	return p.withStatus(n, st, err)
}

// sourceStatus is a definition source's runtime status: Paused when it or
// its Eventstream is, Running for a CustomEndpoint, and for a run source
// its runner's state (Creating until it first delivered or joined, Failed
// with the reason), or Unknown without a broker.
func (p *Plane) sourceStatus(props eventstream.Model, n *definition.Node) (string, error) {
	id := strings.ToLower(n.ID())
	if props.IsPaused(id) || props.StreamPaused() {
		return StatusPaused, nil
	}
	if n.Is("CustomEndpoint") {
		return StatusRunning, nil
	}
	found, ready, err := p.rt.SourceState(id)
	if !found {
		return StatusUnknown, nil
	}
	switch {
	case err != nil:
		return StatusFailed, err
	case !ready:
		return StatusCreating, nil
	}
	return StatusRunning, nil
}

// kafkaReadError is a topic the cluster cannot serve (see
// Runtime.KafkaHealth), reported
// in the topology with the errorCode of a produce the cluster refuses.
type kafkaReadError struct{ err error }

func (e kafkaReadError) Error() string {
	return "the Kafka cluster cannot serve the Eventstream's topic for now; delivery resumes once it can: " + e.err.Error()
}

func (e kafkaReadError) Unwrap() error { return e.err }

// ErrorCode is the errorCode the topology reports.
func (kafkaReadError) ErrorCode() string { return string(fabricerr.KafkaUnavailable) }

// Scrub replaces the OneLake root in msg (a failure of the Delta writer
// names its files) with "OneLake", so a message names the table's place
// without the server's directories.
func (p *Plane) Scrub(msg string) string {
	if p.cfg.OneLakeDir == "" {
		return msg
	}
	return strings.ReplaceAll(msg, strings.TrimSuffix(p.cfg.OneLakeDir, "/"), "OneLake")
}
