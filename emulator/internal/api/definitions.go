package api

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"github.com/fabrictest/fabrictest/emulator/internal/control"
	"github.com/fabrictest/fabrictest/emulator/internal/eventstream"
	"github.com/fabrictest/fabrictest/emulator/internal/fabricerr"
	"github.com/fabrictest/fabrictest/emulator/internal/store"
	"github.com/fabrictest/fabrictest/emulator/wire"
	"github.com/google/uuid"
)

// Eventstream definitions: the eventstream.json topology (with
// eventstreamProperties.json and .platform), as Fabric's create,
// getDefinition and updateDefinition carry it. This file decodes the parts
// and renders them; the control plane compiles and applies them.

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
		return storedDefinition{}, fabricerr.JSON("definition", err)
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
			return out, fabricerr.New(http.StatusBadRequest, CorruptedPayload, "%s (%s): the payload is not a JSON object: %s", at, name, fabricerr.DescribeJSON(err))
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

// ---- routes ----

// getDefinition serves POST …/eventstreams/{id}/getDefinition and
// …/items/{id}/getDefinition.
func (a definitionHandlers) getDefinition(typed string) endpoint {
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
		topo, err := a.plane.Topology(c.r.Context(), es, false)
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
func (a definitionHandlers) updateDefinition(typed string) endpoint {
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
		req := control.DefinitionUpdate{Parts: def, UpdateMetadata: updateMeta}
		return answerOK(c, refusalError(a.plane.UpdateDefinition(c.r.Context(), c.caller(), control.ItemRef{WorkspaceID: es.WorkspaceID, ID: es.ID, Type: TypeEventstream}, req)))
	}
}

func notForItem(it store.Item) error {
	return fabricerr.New(http.StatusBadRequest, "OperationNotSupportedForItem",
		"item %s is a %s, which has no definition in Fabric", it.ID, it.Type)
}
