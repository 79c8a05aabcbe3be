package api

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/fabrictest/fabrictest/emulator/internal/definition"
	"github.com/fabrictest/fabrictest/emulator/internal/eventstream"
	"github.com/fabrictest/fabrictest/emulator/internal/fabricerr"
	"github.com/fabrictest/fabrictest/emulator/internal/store"
	"github.com/fabrictest/fabrictest/emulator/wire"
	"github.com/google/uuid"
)

// Eventstream definitions: the eventstream.json topology (with
// eventstreamProperties.json and .platform), as Fabric's create,
// getDefinition and updateDefinition carry it. This file decodes the parts,
// has internal/definition compile the topology into a plan (items and
// authorisation through definitions_compile.go's resolver), then stores the
// plan: its Lakehouse, Eventhouse and Activator destinations become
// bindings, exactly as the native routes make them, and each DerivedStream
// gets its own topic (derived_streams.go). Everything is checked before
// anything changes.

// EventstreamNodeNotSupported answers a definition node the emulator cannot run.
const EventstreamNodeNotSupported = "EventstreamNodeNotSupported"

// CorruptedPayload answers a definition part that is not base64 JSON.
const CorruptedPayload = "CorruptedPayload"

const (
	partTopology   = "eventstream.json"
	partProperties = "eventstreamProperties.json"
	partPlatform   = ".platform"
)

var defaultESProperties = json.RawMessage(`{"retentionTimeInDays":1,"eventThroughputLevel":"Low"}`)

// definitionPart and definitionJSON are a definition as the routes read
// and answer it.
type (
	definitionPart = wire.DefinitionPart
	definitionJSON = wire.Definition
)

// decodeDefinition reads a definition envelope into its three parts.
func decodeDefinition(raw json.RawMessage) (storedDefinition, error) {
	var d definitionJSON
	if err := json.Unmarshal(raw, &d); err != nil {
		return storedDefinition{}, jsonError("definition", err)
	}
	if d.Format != "" && !strings.EqualFold(d.Format, "eventstream") {
		return storedDefinition{}, fabricerr.BadParameter("definition.format", "%q is not a format of Eventstream definitions; leave it out or send \"eventstream\"", d.Format)
	}
	var out storedDefinition
	seen := map[string]bool{}
	for i, p := range d.Parts {
		at := fmt.Sprintf("definition.parts[%d]", i)
		if !strings.EqualFold(p.PayloadType, "InlineBase64") {
			return out, fabricerr.BadParameter(at+".payloadType", "%q is not supported; want InlineBase64", p.PayloadType)
		}
		var name string
		for _, n := range []string{partTopology, partProperties, partPlatform} {
			if strings.EqualFold(strings.TrimPrefix(p.Path, "/"), n) {
				name = n
			}
		}
		if name == "" {
			return out, fabricerr.BadParameter(at+".path", "%q is not a part of an Eventstream definition; want eventstream.json, eventstreamProperties.json or .platform", p.Path)
		}
		if seen[name] {
			return out, fabricerr.BadParameter(at+".path", "%s is given twice", name)
		}
		seen[name] = true
		payload, err := base64.StdEncoding.DecodeString(strings.TrimSpace(p.Payload))
		if err != nil {
			payload, err = base64.RawStdEncoding.DecodeString(strings.TrimSpace(p.Payload))
		}
		if err != nil {
			return out, fabricerr.New(http.StatusBadRequest, CorruptedPayload, "%s (%s): the payload is not base64: %v", at, name, err)
		}
		var probe map[string]any
		if err := json.Unmarshal(payload, &probe); err != nil {
			return out, fabricerr.New(http.StatusBadRequest, CorruptedPayload, "%s (%s): the payload is not a JSON object: %s", at, name, describeJSON(err))
		}
		switch name {
		case partTopology:
			out.Topology = payload
		case partProperties:
			out.Properties = payload
		case partPlatform:
			out.Platform = payload
		}
	}
	if out.Topology == nil {
		return out, fabricerr.BadParameter("definition.parts", "eventstream.json is required")
	}
	return out, nil
}

// ---- applying a plan ----

// applyDefinition stores the plan on es (already stored, with its stream)
// and reconciles the destinations: kept (same type, item and table),
// created, or removed when the definition no longer has them.
func (a *API) applyDefinition(ctx context.Context, es *store.Item, p *definition.Plan) error {
	existing, err := a.userDestinations(ctx, es.ID)
	if err != nil {
		return err
	}
	endpointsBefore, err := endpointIDs(*es)
	if err != nil {
		return err
	}
	dests, keep := plannedDestinations(es.ID, p, existing)
	oldStreams, err := setPlan(es, p, keep)
	if err != nil {
		return err
	}
	if err := a.cfg.Store.UpdateItem(ctx, *es); errors.Is(err, store.ErrConflict) {
		return nameInUse(es.Type, es.DisplayName)
	} else if err != nil {
		return err
	}
	for _, o := range existing {
		if keep[o.ID] {
			continue
		}
		if err := a.rt.Stop(o.ID); err != nil {
			return err
		}
		if err := a.cfg.Store.DeleteDestination(ctx, o.ID); err != nil && !errors.Is(err, store.ErrNotFound) {
			return err
		}
	}
	for _, d := range dests {
		if _, _, err := a.applyBinding(ctx, d, false); err != nil {
			return err
		}
	}
	if err := a.applyDerivedStreams(ctx, *es, p, oldStreams); err != nil {
		return err
	}
	// Drains whose operators changed restart; sources start, restart or stop.
	if err := a.rt.Sync(ctx, es.ID); err != nil {
		return err
	}
	endpointsAfter, err := endpointIDs(*es)
	if err != nil {
		return err
	}
	gone := slices.DeleteFunc(endpointsBefore, func(id string) bool { return slices.Contains(endpointsAfter, id) })
	return a.closeEndpoints(ctx, gone...)
}

// plannedDestinations returns the destinations of p on Eventstream esID,
// each with the id of the existing destination of the same type, item and
// table or a new one (set in its node too), and the set of those ids.
func plannedDestinations(esID string, p *definition.Plan, existing []store.Destination) ([]store.Destination, map[string]bool) {
	keep := map[string]bool{}
	dests := make([]store.Destination, len(p.Destinations))
	for i, pd := range p.Destinations {
		d := destinationOf(esID, p, pd)
		d.ID = uuid.NewString()
		for _, o := range existing {
			if o.Type == d.Type && o.ItemID == d.ItemID && o.Target == d.Target {
				d.ID = o.ID
			}
		}
		keep[d.ID] = true
		pd.Node.Raw["id"] = d.ID
		dests[i] = d
	}
	return dests, keep
}

// setPlan sets p on es (not stored): its definition, operators, streams,
// paused nodes (keep are its destinations' ids) and metadata. It returns
// the streams es had.
func setPlan(es *store.Item, p *definition.Plan, keep map[string]bool) ([]eventstream.Stream, error) {
	props, err := eventstream.Decode(*es)
	if err != nil {
		return nil, err
	}
	def := p.Parts
	def.Topology = p.Topology.Marshal()
	if err := props.SetDefinition(def); err != nil {
		return nil, err
	}
	props.Operators = p.Operators
	props.Streams[0].Name = p.StreamName
	oldStreams := props.Streams
	props.Streams = props.Streams[:1:1]
	live := append(slices.Clone(p.NodeIDs), props.Streams[0].ID)
	for id := range keep {
		live = append(live, id)
	}
	// A paused Eventstream keeps its new DerivedStreams paused too.
	esPaused := props.StreamPaused()
	for _, ps := range p.Derived {
		id := ps.Node.ID()
		props.Streams = append(props.Streams, eventstream.Stream{ID: id, Name: ps.Node.Name,
			Type: eventstream.DerivedStreamType, Topic: eventstream.DerivedTopic(es.ID, id)})
		live = append(live, strings.ToLower(id))
		if esPaused && !slices.ContainsFunc(oldStreams, func(s eventstream.Stream) bool { return strings.EqualFold(s.ID, id) }) {
			props.Paused = append(props.Paused, strings.ToLower(id))
		}
	}
	props.Paused = slices.DeleteFunc(props.Paused, func(id string) bool { return !slices.Contains(live, id) })
	if err := props.Encode(es); err != nil {
		return nil, err
	}
	if p.DisplayName != nil {
		es.DisplayName = *p.DisplayName
	}
	if p.Description != nil {
		es.Description = *p.Description
	}
	return oldStreams, nil
}

// ---- routes ----

// getDefinition serves POST …/eventstreams/{id}/getDefinition and
// …/items/{id}/getDefinition.
func (a *API) getDefinition(typed string) endpoint {
	return func(c *call) error {
		es, err := a.item(c, typed, store.RoleContributor)
		if err != nil {
			return err
		}
		if es.Type != TypeEventstream {
			return a.getItemDefinition(c, es)
		}
		if f := c.r.URL.Query().Get("format"); f != "" && !strings.EqualFold(f, "eventstream") {
			return fabricerr.BadParameter("format", "%q is not a format of Eventstream definitions", f)
		}
		topo, err := a.renderTopology(c.r.Context(), es, false)
		if err != nil {
			return err
		}
		props, err := eventstream.Decode(es)
		if err != nil {
			return err
		}
		esProps, platform := defaultESProperties, json.RawMessage(nil)
		if d := props.Definition; d != nil {
			if len(d.Properties) > 0 {
				esProps = d.Properties
			}
			platform = d.Platform
		}
		pl := map[string]any{}
		_ = json.Unmarshal(platform, &pl)
		if _, ok := pl["$schema"]; !ok {
			pl["$schema"] = "https://developer.microsoft.com/json-schemas/fabric/gitIntegration/platformProperties/2.0.0/schema.json"
		}
		md, _ := pl["metadata"].(map[string]any)
		if md == nil {
			md = map[string]any{}
		}
		md["type"], md["displayName"] = TypeEventstream, es.DisplayName
		if es.Description != "" {
			md["description"] = es.Description
		} else {
			delete(md, "description")
		}
		pl["metadata"] = md
		if _, ok := pl["config"]; !ok {
			pl["config"] = map[string]any{"version": "2.0", "logicalId": uuid.Nil.String()}
		}
		platformJSON, _ := json.Marshal(pl)
		topoJSON, _ := json.Marshal(topo)
		part := func(path string, b []byte) definitionPart {
			return definitionPart{Path: path, Payload: base64.StdEncoding.EncodeToString(b), PayloadType: "InlineBase64"}
		}
		return c.JSON(http.StatusOK, wire.DefinitionAnswer{Definition: definitionJSON{Parts: []definitionPart{
			part(partTopology, topoJSON), part(partProperties, esProps), part(partPlatform, platformJSON)}}})
	}
}

// updateDefinition serves POST …/updateDefinition?updateMetadata=.
func (a *API) updateDefinition(typed string) endpoint {
	return func(c *call) error {
		es, err := a.item(c, typed, store.RoleContributor)
		if err != nil {
			return err
		}
		if es.Type != TypeEventstream {
			return a.updateItemDefinition(c, es)
		}
		updateMeta, raw, err := a.definitionUpdate(c)
		if err != nil {
			return err
		}
		def, err := decodeDefinition(raw)
		if err != nil {
			return err
		}
		p, err := a.planDefinition(c, es, def)
		if err != nil {
			return err
		}
		if !updateMeta {
			p.DisplayName, p.Description = nil, nil
		} else if err := a.checkMetadata(p); err != nil {
			return err
		}
		if err := a.applyDefinition(c.r.Context(), &es, p); err != nil {
			return err
		}
		c.w.WriteHeader(http.StatusOK)
		return nil
	}
}

func (a *API) checkMetadata(p *definition.Plan) error {
	if p.DisplayName != nil {
		if err := validItemName(TypeEventstream, *p.DisplayName); err != nil {
			return err
		}
	}
	if p.Description != nil {
		return validItemDescription(*p.Description)
	}
	return nil
}

func notForItem(it store.Item) error {
	return fabricerr.New(http.StatusBadRequest, "OperationNotSupportedForItem",
		"item %s is a %s, which has no definition in Fabric", it.ID, it.Type)
}
