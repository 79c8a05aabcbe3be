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
func destinationNode(d store.Destination, input string) (map[string]any, error) {
	spec, err := eventstream.SpecOf(d)
	if err != nil {
		return nil, err
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
	return map[string]any{"id": d.ID, "name": name, "type": fabricDestinationType(d.Type), "properties": props,
		"inputNodes": []any{map[string]any{"name": input}}}, nil
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

func (a *API) withStatus(n map[string]any, status string, err error) map[string]any {
	out := make(map[string]any, len(n)+2)
	for k, v := range n {
		out[k] = v
	}
	out["status"] = status
	if err != nil {
		code := "DestinationFailed"
		var coded interface{ ErrorCode() string }
		if errors.As(err, &coded) {
			code = coded.ErrorCode()
		}
		out["error"] = map[string]any{"errorCode": code, "errorMessage": a.scrub(err.Error())}
	}
	return out
}

// renderTopology renders es's topology: the stored definition's nodes (with
// ids) that still exist, the native bindings, and with status the runtime
// state of sources and destinations.
func (a *API) renderTopology(ctx context.Context, es store.Item, status bool) (map[string]any, error) {
	props, err := eventstream.Decode(es)
	if err != nil {
		return nil, err
	}
	t, err := props.Topology()
	if err != nil {
		return nil, err
	}
	dests, err := a.cfg.Store.ListDestinations(ctx, es.ID)
	if err != nil {
		return nil, err
	}
	v := &topologyView{out: map[string]any{"compatibilityLevel": "1.0"}, seen: map[string]bool{}, input: props.Default().Name}
	if t != nil {
		a.definitionNodes(v, t, props, dests, status)
	} else {
		for _, s := range props.Streams {
			v.streams = append(v.streams, map[string]any{"id": s.ID, "name": s.Name, "type": s.Type, "properties": map[string]any{}, "inputNodes": []any{}})
		}
		if v.operators, v.input, err = nativeOperators(props, v.input); err != nil {
			return nil, err
		}
	}
	for _, d := range dests {
		if v.seen[d.ID] || internal(d) {
			continue
		}
		st, derr := a.destinationStatus(d, props.Paused)
		input := v.input
		if spec, _ := eventstream.SpecOf(d); spec.IngestionMode == definition.DirectIngestion {
			input = props.Default().Name // it reads the stream, not the operators
		}
		node, err := destinationNode(d, input)
		if err != nil {
			return nil, err
		}
		v.destinations = append(v.destinations, a.maybeStatus(node, status, st, derr))
	}
	for k, l := range map[string][]any{"sources": v.sources, "streams": v.streams, "operators": v.operators, "destinations": v.destinations} {
		if l == nil {
			l = []any{}
		}
		v.out[k] = l
	}
	return v.out, nil
}

// topologyView is a topology being rendered.
type topologyView struct {
	out                                       map[string]any
	sources, streams, operators, destinations []any
	seen                                      map[string]bool // destinations rendered from definition nodes
	input                                     string          // the node native bindings read
}

// definitionNodes renders the nodes of the stored definition t into v.
func (a *API) definitionNodes(v *topologyView, t *topology, props eventstream.Model, dests []store.Destination, status bool) {
	byID := map[string]store.Destination{}
	for _, d := range dests {
		byID[d.ID] = d
	}
	if cl, ok := t.Field("compatibilityLevel"); ok {
		v.out["compatibilityLevel"] = cl
	}
	for _, n := range t.Sources {
		st, serr := a.sourceStatus(props, n)
		v.sources = append(v.sources, a.maybeStatus(n.Raw, status, st, serr))
	}
	for _, n := range t.Streams {
		v.streams = append(v.streams, n.Raw)
	}
	for _, n := range t.Operators {
		v.operators = append(v.operators, n.Raw)
	}
	for _, n := range t.Destinations {
		if n.Is("CustomEndpoint") {
			st := statusRunning
			if props.IsPaused(n.ID()) {
				st = statusPaused
			}
			v.destinations = append(v.destinations, a.maybeStatus(n.Raw, status, st, nil))
			continue
		}
		d, ok := byID[n.ID()]
		if !ok {
			continue // unbound since
		}
		v.seen[d.ID] = true
		st, derr := a.destinationStatus(d, props.Paused)
		v.destinations = append(v.destinations, a.maybeStatus(n.Raw, status, st, derr))
	}
}

// nativeOperators renders the native operator chain, each reading the one
// before (the first reads input); it returns the name the destinations read.
func nativeOperators(props eventstream.Model, input string) ([]any, string, error) {
	chain, err := props.OperatorObjects()
	if err != nil {
		return nil, "", err
	}
	var operators []any
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
		operators = append(operators, map[string]any{"name": name, "type": typ, "properties": rest, "inputNodes": []any{map[string]any{"name": input}}})
		input = name
	}
	return operators, input, nil
}

func (a *API) maybeStatus(n map[string]any, status bool, st string, err error) map[string]any {
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
func (a *API) topologyNode(c *call, es store.Item, list, id, what string) (map[string]any, error) {
	t, err := a.renderTopology(c.r.Context(), es, true)
	if err != nil {
		return nil, err
	}
	for _, n := range t[list].([]any) {
		m := n.(map[string]any)
		if s, _ := m["id"].(string); strings.EqualFold(s, id) {
			return m, nil
		}
	}
	return nil, fabricerr.NotFound(fabricerr.EntityNotFound, what, id)
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
	n, err := a.topologyNode(c, es, "destinations", id, "Destination")
	if err != nil {
		if d, derr := a.cfg.Store.GetDestination(c.r.Context(), id); derr != nil || d.EventstreamID != es.ID || internal(d) {
			return fabricerr.NotFound("DestinationNotFound", "Destination", id)
		}
		return err
	}
	if d, err := a.cfg.Store.GetDestination(c.r.Context(), id); err == nil && d.EventstreamID == es.ID {
		r := a.renderDestination(d)
		n["workspaceId"], n["itemId"] = r.WorkspaceID, r.ItemID
		if r.Table != "" {
			n["table"] = r.Table
		}
		if r.Database != "" {
			n["database"] = r.Database
		}
		if r.Delivery != nil {
			n["delivery"] = r.Delivery
		}
		for k, v := range map[string]string{"errorPolicy": r.ErrorPolicy, "deadLetterTopic": r.DeadLetterTopic, "schemaMode": r.SchemaMode} {
			if v != "" {
				n[k] = v
			}
		}
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

func pausedError(es store.Item, ds string) error {
	return fabricerr.New(http.StatusConflict, EventstreamSourcePaused,
		"source %s of Eventstream %s is paused; POST …/eventstreams/%s/sources/{sourceId}/resume (or …/eventstreams/%s/resume) with {\"startType\": \"Now\"} to accept events again",
		ds, es.ID, es.ID, es.ID).WithResource(ds, "Source")
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
func (kafkaReadError) ErrorCode() string { return fabricerr.KafkaUnavailable }
