package api

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/fabrictest/fabrictest/emulator/internal/control"
	"github.com/fabrictest/fabrictest/emulator/internal/definition"
	"github.com/fabrictest/fabrictest/emulator/internal/eventstream"
	"github.com/fabrictest/fabrictest/emulator/internal/fabricerr"
	"github.com/fabrictest/fabrictest/emulator/internal/store"
	"github.com/fabrictest/fabrictest/emulator/wire"
)

// The topology API: the Eventstream's sources, streams, operators and
// destinations with their runtime status, and pause / resume.

// EventstreamSourcePaused answers a produce into a paused source: 409, the
// request is valid but conflicts with the source's state (resume it, or
// retry later), as opposed to a 400 for a request that can never succeed.
const EventstreamSourcePaused = "EventstreamSourcePaused"

// Runtime statuses (Fabric's NodeStatus).
const (
	statusRunning = "Running"
	statusPaused  = "Paused"
	statusFailed  = "Failed"
	statusUnknown = "Unknown"
	// statusWarning is a destination that runs but cannot read its topic
	// from Kafka for now (a broker lost): Fabric's NodeStatus "Warning".
	statusWarning  = "Warning"
	statusCreating = "Creating"
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
func (a *API) destinationStatus(d store.Destination, paused []string) (string, error) {
	if slices.Contains(paused, d.ID) {
		return statusPaused, nil
	}
	st, ok := a.rt.DrainStatus(d.ID)
	switch {
	case !ok:
		return statusUnknown, nil
	case st.Err != nil:
		return statusFailed, st.Err
	}
	if err := a.rt.KafkaHealth(context.Background(), d.ID); err != nil {
		return statusWarning, kafkaReadError{err}
	}
	return statusRunning, nil
}

// withStatus is n with its runtime status and, when err is set, its error.
func (a *API) withStatus(n wire.Node, status string, err error) wire.Node {
	n.Status = status
	if err != nil {
		n.Error = &wire.NodeError{ErrorCode: wire.DestinationFailed, ErrorMessage: a.scrub(err.Error())}
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

// renderTopology renders es's topology: the stored definition's nodes (with
// ids) that still exist, the native bindings, and with status the runtime
// state of sources and destinations.
func (a *API) renderTopology(ctx context.Context, es store.Item, status bool) (wire.Topology, error) {
	props, err := eventstream.Decode(es)
	if err != nil {
		return wire.Topology{}, err
	}
	t, err := props.Topology()
	if err != nil {
		return wire.Topology{}, err
	}
	dests, err := a.cfg.Store.ListDestinations(ctx, es.ID)
	if err != nil {
		return wire.Topology{}, err
	}
	v := &topologyView{out: wire.Topology{CompatibilityLevel: "1.0"}, seen: map[string]bool{}, input: props.Default().Name}
	if t != nil {
		a.definitionNodes(v, t, props, dests, status)
	} else {
		for _, s := range props.Streams {
			v.out.Streams = append(v.out.Streams, wire.Node{ID: s.ID, Name: s.Name, Type: s.Type, Properties: map[string]any{}, InputNodes: []wire.NodeRef{}})
		}
		if v.out.Operators, v.input, err = nativeOperators(props, v.input); err != nil {
			return wire.Topology{}, err
		}
	}
	for _, d := range dests {
		if v.seen[d.ID] || control.Internal(d) {
			continue
		}
		st, derr := a.destinationStatus(d, props.Paused)
		input := v.input
		if spec, _ := eventstream.SpecOf(d); spec.IngestionMode == definition.DirectIngestion {
			input = props.Default().Name // it reads the stream, not the operators
		}
		node, err := destinationNode(d, input)
		if err != nil {
			return wire.Topology{}, err
		}
		v.out.Destinations = append(v.out.Destinations, a.maybeStatus(node, status, st, derr))
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
func (a *API) definitionNodes(v *topologyView, t *topology, props eventstream.Model, dests []store.Destination, status bool) {
	byID := map[string]store.Destination{}
	for _, d := range dests {
		byID[d.ID] = d
	}
	if cl, ok := t.Field("compatibilityLevel"); ok {
		v.out.CompatibilityLevel, _ = cl.(string)
	}
	for _, n := range t.Sources {
		st, serr := a.sourceStatus(props, n)
		v.out.Sources = append(v.out.Sources, a.maybeStatus(wireNode(n.Raw), status, st, serr))
	}
	for _, n := range t.Streams {
		v.out.Streams = append(v.out.Streams, wireNode(n.Raw))
	}
	for _, n := range t.Operators {
		v.out.Operators = append(v.out.Operators, wireNode(n.Raw))
	}
	for _, n := range t.Destinations {
		if n.Is("CustomEndpoint") {
			st := statusRunning
			if props.IsPaused(n.ID()) {
				st = statusPaused
			}
			v.out.Destinations = append(v.out.Destinations, a.maybeStatus(wireNode(n.Raw), status, st, nil))
			continue
		}
		d, ok := byID[n.ID()]
		if !ok {
			continue // unbound since
		}
		v.seen[d.ID] = true
		st, derr := a.destinationStatus(d, props.Paused)
		v.out.Destinations = append(v.out.Destinations, a.maybeStatus(wireNode(n.Raw), status, st, derr))
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

func (a *API) maybeStatus(n wire.Node, status bool, st string, err error) wire.Node {
	if !status {
		return n
	}
	return a.withStatus(n, st, err)
}

// getTopology serves GET …/eventstreams/{id}/topology.
func (a *API) getTopology(c *call) error {
	es, err := a.item(c, TypeEventstream, store.RoleViewer)
	if err != nil {
		return err
	}
	t, err := a.renderTopology(c.r.Context(), es, true)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, t)
}

// topologyNode finds the {ds} source or {dest} destination in the rendered topology.
func (a *API) topologyNode(c *call, es store.Item, list, id, what string) (wire.Node, error) {
	t, err := a.renderTopology(c.r.Context(), es, true)
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

// getSource serves GET …/eventstreams/{id}/sources/{ds}.
func (a *API) getSource(c *call) error {
	es, err := a.item(c, TypeEventstream, store.RoleViewer)
	if err != nil {
		return err
	}
	n, err := a.topologyNode(c, es, "sources", c.r.PathValue("ds"), "Source")
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, n)
}

// getDestination serves GET …/eventstreams/{id}/destinations/{dest}:
// Fabric's DestinationResponse; a binding adds the emulator's view
// (workspaceId, itemId, table, database, delivery) beside it.
func (a *API) getDestination(c *call) error {
	es, err := a.item(c, TypeEventstream, store.RoleViewer)
	if err != nil {
		return err
	}
	id := c.r.PathValue("dest")
	node, err := a.topologyNode(c, es, "destinations", id, "Destination")
	if err != nil {
		if d, derr := a.cfg.Store.GetDestination(c.r.Context(), id); derr != nil || d.EventstreamID != es.ID || control.Internal(d) {
			return fabricerr.NotFound(wire.DestinationNotFound, "Destination", id)
		}
		return err
	}
	n := wire.DestinationNode{Node: node}
	if d, err := a.cfg.Store.GetDestination(c.r.Context(), id); err == nil && d.EventstreamID == es.ID {
		r := a.renderDestination(d)
		n.WorkspaceID, n.ItemID, n.Table, n.Database, n.Delivery = r.WorkspaceID, r.ItemID, r.Table, r.Database, r.Delivery
		n.ErrorPolicy, n.DeadLetterTopic, n.SchemaMode = r.ErrorPolicy, r.DeadLetterTopic, r.SchemaMode
	}
	return c.JSON(http.StatusOK, n)
}

// ---- pause / resume ----

// esRef is the call's Eventstream as the control plane names it.
func esRef(c *call) control.ItemRef {
	return control.ItemRef{WorkspaceID: c.r.PathValue("ws"), ID: c.r.PathValue("id"), Type: TypeEventstream}
}

// nodeRef is the call's node {key} of its Eventstream.
func nodeRef(c *call, key string) control.NodeRef {
	return control.NodeRef{Eventstream: esRef(c), Node: c.r.PathValue(key)}
}

// answerOK answers 200 without a body when err is nil.
func answerOK(c *call, err error) error {
	if err != nil {
		return err
	}
	c.w.WriteHeader(http.StatusOK)
	return nil
}

// readStart decodes a resume body once check (the caller's reach of the
// node, answered first as every route does) passed; the control plane
// checks the body.
func (a *API) readStart(c *call, check error) (control.Start, error) {
	var s control.Start
	if check != nil {
		return s, check
	}
	return s, a.decode(c, &s)
}

// pauseEventstream serves POST …/eventstreams/{id}/pause.
func (a *API) pauseEventstream(c *call) error {
	return answerOK(c, a.plane.PauseEventstream(c.r.Context(), c.caller(), esRef(c)))
}

// resumeEventstream serves POST …/eventstreams/{id}/resume.
func (a *API) resumeEventstream(c *call) error {
	_, check := a.item(c, TypeEventstream, store.RoleContributor)
	st, err := a.readStart(c, check)
	if err != nil {
		return err
	}
	return answerOK(c, a.plane.ResumeEventstream(c.r.Context(), c.caller(), esRef(c), st))
}

func (a *API) pauseSource(c *call) error {
	return answerOK(c, a.plane.PauseSource(c.r.Context(), c.caller(), nodeRef(c, "ds")))
}

func (a *API) resumeSource(c *call) error {
	st, err := a.readStart(c, a.plane.CheckSource(c.r.Context(), c.caller(), nodeRef(c, "ds")))
	if err != nil {
		return err
	}
	return answerOK(c, a.plane.ResumeSource(c.r.Context(), c.caller(), nodeRef(c, "ds"), st))
}

func (a *API) pauseDestination(c *call) error {
	return answerOK(c, a.plane.PauseDestination(c.r.Context(), c.caller(), nodeRef(c, "dest")))
}

func (a *API) resumeDestination(c *call) error {
	st, err := a.readStart(c, a.plane.CheckDestinationNode(c.r.Context(), c.caller(), nodeRef(c, "dest")))
	if err != nil {
		return err
	}
	return answerOK(c, a.plane.ResumeDestination(c.r.Context(), c.caller(), nodeRef(c, "dest"), st))
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
