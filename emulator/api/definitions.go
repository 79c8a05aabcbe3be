package api

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/fabrictest/fabrictest/emulator/fabricerr"
	"github.com/fabrictest/fabrictest/emulator/pipeline"
	"github.com/fabrictest/fabrictest/emulator/store"
	"github.com/google/uuid"
)

// Eventstream definitions: the eventstream.json topology (with
// eventstreamProperties.json and .platform), as Fabric's create,
// getDefinition and updateDefinition carry it. A definition is turned into
// the emulator's own model: its CustomEndpoint sources feed the DefaultStream
// (the emulator's stream, whose id is the datasource id), its operators
// become pipeline operators and its Lakehouse, Eventhouse and Activator
// destinations become bindings, exactly as the native routes make them,
// and each DerivedStream gets its own topic (derived_streams.go).
// Everything is checked before anything changes.

// EventstreamNodeNotSupported answers a definition node the emulator cannot run.
const EventstreamNodeNotSupported = "EventstreamNodeNotSupported"

// CorruptedPayload answers a definition part that is not base64 JSON.
const CorruptedPayload = "CorruptedPayload"

// storedDefinition is what an Eventstream keeps of its definition: the
// topology with the ids the emulator assigned, and the other two parts.
type storedDefinition struct {
	Topology   json.RawMessage `json:"topology"`
	Properties json.RawMessage `json:"properties,omitempty"`
	Platform   json.RawMessage `json:"platform,omitempty"`
}

const (
	partTopology   = "eventstream.json"
	partProperties = "eventstreamProperties.json"
	partPlatform   = ".platform"
)

var defaultESProperties = json.RawMessage(`{"retentionTimeInDays":1,"eventThroughputLevel":"Low"}`)

type definitionPart struct {
	Path        string `json:"path"`
	Payload     string `json:"payload"`
	PayloadType string `json:"payloadType"`
}

type definitionJSON struct {
	Format string           `json:"format,omitempty"`
	Parts  []definitionPart `json:"parts"`
}

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

// ---- the topology ----

// node is one node of eventstream.json, kept as given (raw) for round trips.
type node struct {
	kind   string // source, stream, operator, destination
	path   string // sources[0]
	raw    map[string]any
	name   string
	typ    string
	props  map[string]any
	inputs []string
}

type topology struct {
	raw                                       map[string]any
	sources, streams, operators, destinations []*node
	byName                                    map[string]*node
}

var topologyKeys = []struct{ key, kind string }{
	{"sources", "source"}, {"streams", "stream"}, {"operators", "operator"}, {"destinations", "destination"},
}

func (t *topology) list(kind string) *[]*node {
	switch kind {
	case "source":
		return &t.sources
	case "stream":
		return &t.streams
	case "operator":
		return &t.operators
	}
	return &t.destinations
}

// parseTopology reads eventstream.json; node names must be unique.
func parseTopology(data []byte) (*topology, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	t := &topology{byName: map[string]*node{}}
	if err := dec.Decode(&t.raw); err != nil || t.raw == nil {
		return nil, fabricerr.New(http.StatusBadRequest, CorruptedPayload, "eventstream.json is not a JSON object: %s", describeJSON(err))
	}
	for _, k := range topologyKeys {
		v, ok := t.raw[k.key]
		if !ok || v == nil {
			t.raw[k.key] = []any{}
			continue
		}
		list, ok := v.([]any)
		if !ok {
			return nil, fabricerr.BadParameter("eventstream.json "+k.key, "want an array")
		}
		for i, item := range list {
			path := fmt.Sprintf("%s[%d]", k.key, i)
			m, ok := item.(map[string]any)
			if !ok {
				return nil, fabricerr.BadParameter("eventstream.json "+path, "want a node object")
			}
			n := &node{kind: k.kind, path: path, raw: m}
			n.name, _ = m["name"].(string)
			n.typ, _ = m["type"].(string)
			if strings.TrimSpace(n.name) == "" {
				return nil, fabricerr.BadParameter("eventstream.json "+path+".name", "required")
			}
			if n.typ == "" {
				return nil, fabricerr.BadParameter("eventstream.json "+path+".type", "required (node %q)", n.name)
			}
			if other, dup := t.byName[n.name]; dup {
				return nil, fabricerr.BadParameter("eventstream.json "+path+".name", "%q is also the name of %s; node names are unique", n.name, other.path)
			}
			switch p := m["properties"].(type) {
			case map[string]any:
				n.props = p
			case nil:
				n.props = map[string]any{}
			default:
				return nil, fabricerr.BadParameter("eventstream.json "+path+".properties", "want an object (node %q)", n.name)
			}
			if in, ok := m["inputNodes"]; ok && in != nil {
				ins, ok := in.([]any)
				if !ok {
					return nil, fabricerr.BadParameter("eventstream.json "+path+".inputNodes", "want an array of {name} (node %q)", n.name)
				}
				for j, x := range ins {
					xm, _ := x.(map[string]any)
					name, _ := xm["name"].(string)
					if name == "" {
						return nil, fabricerr.BadParameter(fmt.Sprintf("eventstream.json %s.inputNodes[%d].name", path, j), "required (node %q)", n.name)
					}
					n.inputs = append(n.inputs, name)
				}
			}
			t.byName[n.name] = n
			l := t.list(k.kind)
			*l = append(*l, n)
		}
	}
	return t, nil
}

// marshal renders the topology as stored (node objects as given, with ids).
func (t *topology) marshal() json.RawMessage {
	for _, k := range topologyKeys {
		l := *t.list(k.kind)
		arr := make([]any, len(l))
		for i, n := range l {
			arr[i] = n.raw
		}
		t.raw[k.key] = arr
	}
	if _, ok := t.raw["compatibilityLevel"]; !ok {
		t.raw["compatibilityLevel"] = "1.0"
	}
	out, _ := json.Marshal(t.raw)
	return out
}

func (n *node) id() string { s, _ := n.raw["id"].(string); return s }

func (n *node) is(typ string) bool { return strings.EqualFold(n.typ, typ) }

func refuse(n *node, reason string) error {
	return fabricerr.New(http.StatusBadRequest, EventstreamNodeNotSupported,
		"%s %q (%s) is of type %s, which this emulator cannot run: %s", n.kind, n.name, n.path, n.typ, reason).
		WithDetails(fabricerr.Detail{ErrorCode: EventstreamNodeNotSupported, Message: n.path + ".type"})
}

func badNode(n *node, field, format string, args ...any) error {
	at := "eventstream.json " + n.path
	if field != "" {
		at += "." + field
	}
	return fabricerr.BadParameter(at, "%s %q: %s", n.kind, n.name, fmt.Sprintf(format, args...))
}

// sourceRefusals gives the reason a source type is refused when it is
// more specific than the default (SampleData and Kafka-protocol sources run:
// see sources.go).
var sourceRefusals = map[string]string{}

var operatorRefusals = map[string]string{
	"join":   "joins of two streams are not built",
	"union":  "unions of streams are not built",
	"expand": "array expansion is not built",
	"sql":    "SQL (Stream Analytics query) operators are not built",
}

// ---- the plan: a checked definition and what it becomes ----

type plannedDest struct {
	n *node
	d store.Destination // checked; ID set at apply
}

type definitionPlan struct {
	def        storedDefinition
	topo       *topology
	streamID   string
	streamName string
	shared     json.RawMessage // the operator chain every drained destination reads through
	own        bool            // the chains differ: each destination keeps its own
	dests      []plannedDest
	derived    []plannedStream // the DerivedStreams, each with its own topic
	nodeIDs    []string        // ids of the sources and CustomEndpoint destinations
	// metadata from .platform (updateMetadata=true)
	displayName, description *string
}

// planDefinition checks def for Eventstream es (not yet stored on create:
// no streams) and assigns the ids, changing nothing.
func (a *API) planDefinition(c *call, es store.Item, def storedDefinition) (*definitionPlan, error) {
	t, err := parseTopology(def.Topology)
	if err != nil {
		return nil, err
	}
	props := streamsOf(es)
	var old *topology
	if props.Definition != nil {
		old, _ = parseTopology(props.Definition.Topology)
	}
	p := &definitionPlan{def: def, topo: t}
	if len(props.Streams) > 0 {
		p.streamID = props.Streams[0].ID
	} else {
		p.streamID = uuid.NewString()
	}

	// Sources.
	for _, n := range t.sources {
		run, err := a.planSource(c.r.Context(), es.WorkspaceID, n)
		if err != nil {
			return nil, err
		}
		if !run && !n.is("CustomEndpoint") {
			reason, ok := sourceRefusals[strings.ToLower(n.typ)]
			if !ok {
				reason = "it reads from a service the emulator has no connection to; use a CustomEndpoint source and produce the events yourself"
			}
			return nil, refuse(n, reason)
		}
		if !run {
			n.raw["type"] = "CustomEndpoint"
		}
		if len(n.inputs) > 0 {
			return nil, badNode(n, "inputNodes", "a source has no inputs")
		}
	}
	// Streams.
	var def0 *node
	for _, n := range t.streams {
		switch {
		case n.is("DefaultStream"):
			if def0 != nil {
				return nil, badNode(n, "type", "%q is already the DefaultStream; an Eventstream has one", def0.name)
			}
			def0 = n
			n.raw["type"] = "DefaultStream"
			for _, in := range n.inputs {
				if src := t.byName[in]; src == nil || src.kind != "source" {
					return nil, badNode(n, "inputNodes", "%q is not a source of this definition", in)
				}
			}
		case n.is("DerivedStream"):
			n.raw["type"] = "DerivedStream"
			if len(n.inputs) != 1 {
				return nil, badNode(n, "inputNodes", "a DerivedStream reads exactly one operator or stream")
			}
		default:
			return nil, badNode(n, "type", "%q is not DefaultStream or DerivedStream", n.typ)
		}
	}
	if def0 == nil { // the emulator's stream, fed by every source
		name := es.DisplayName + "-stream"
		if len(props.Streams) > 0 {
			name = props.Streams[0].Name
		}
		if t.byName[name] != nil {
			return nil, badNode(t.byName[name], "name", "the definition has no DefaultStream, and this node has the name the emulator gives it")
		}
		ins := []any{}
		for _, s := range t.sources {
			ins = append(ins, map[string]any{"name": s.name})
		}
		def0 = &node{kind: "stream", path: fmt.Sprintf("streams[%d]", len(t.streams)), name: name, typ: "DefaultStream", props: map[string]any{},
			raw: map[string]any{"name": name, "type": "DefaultStream", "properties": map[string]any{}, "inputNodes": ins}}
		t.streams = append(t.streams, def0)
		t.byName[name] = def0
	}
	p.streamName = def0.name

	// Operators: each becomes a pipeline operator spec, checked alone.
	specs := map[string]map[string]any{}
	for _, n := range t.operators {
		if reason, ok := operatorRefusals[strings.ToLower(n.typ)]; ok {
			return nil, refuse(n, reason)
		}
		spec, err := operatorSpec(n)
		if err != nil {
			return nil, err
		}
		if _, err := parseChain([]map[string]any{spec}); err != nil {
			return nil, opError(n, err)
		}
		specs[n.name] = spec
		if len(n.inputs) != 1 {
			return nil, badNode(n, "inputNodes", "an operator reads exactly one stream or operator")
		}
	}
	for _, n := range append(slices.Clone(t.operators), t.streams...) {
		for _, in := range n.inputs {
			src := t.byName[in]
			if src == nil {
				return nil, badNode(n, "inputNodes", "%q is not a node of this definition", in)
			}
			if n.kind == "operator" && src.kind == "source" || n.kind == "stream" && n != def0 && src.kind == "source" {
				return nil, badNode(n, "inputNodes", "%q is a source; sources feed the DefaultStream %q", in, def0.name)
			}
		}
	}

	// Destinations.
	var chains []json.RawMessage
	for _, n := range t.destinations {
		if len(n.inputs) != 1 {
			return nil, badNode(n, "inputNodes", "a destination reads exactly one stream or operator")
		}
		chain, err := chainOf(t, def0, n)
		if err != nil {
			return nil, err
		}
		var req bindRequest
		switch {
		case n.is("CustomEndpoint"):
			n.raw["type"] = "CustomEndpoint"
			// Its Kafka clients read a topic: the DefaultStream's or a
			// DerivedStream's, not an operator's output.
			if in := t.byName[n.inputs[0]]; in.kind == "operator" {
				return nil, badNode(n, "inputNodes", "it reads operator %q, which has no topic of its own; put a DerivedStream between %q and this CustomEndpoint destination (its clients then read the DerivedStream's topic), or read the DefaultStream %q", in.name, in.name, def0.name)
			}
			continue
		case n.is("Lakehouse"):
			n.raw["type"] = "Lakehouse"
			req = bindRequest{Type: "Lakehouse", Table: firstNonEmpty(str(n.props, "deltaTable"), str(n.props, "tableName"), str(n.props, "table"))}
		case n.is("Eventhouse"):
			n.raw["type"] = "Eventhouse"
			req = bindRequest{Type: "Eventhouse", Table: str(n.props, "tableName"), Database: str(n.props, "databaseName")}
			if req.Table == "" {
				return nil, badNode(n, "properties.tableName", "required: the emulator delivers into a named table")
			}
		case n.is("Activator"), n.is("Reflex"):
			req = bindRequest{Type: "Reflex"}
		case n.is("Notebook"):
			return nil, refuse(n, "notebooks read the stream themselves (GET /v1/eventstreams/{id}/sources/{datasourceId} resolves it for Spark); remove the node")
		default:
			return nil, badNode(n, "type", "%q is not one of Lakehouse, Eventhouse, Activator, CustomEndpoint, Notebook", n.typ)
		}
		req.ItemID = str(n.props, "itemId")
		if ws := str(n.props, "workspaceId"); ws != "" && ws != uuid.Nil.String() {
			req.WorkspaceID = ws
		}
		names := map[string]string{"type": "type", "itemId": "properties.itemId", "workspaceId": "properties.workspaceId", "database": "properties.databaseName",
			"table": map[string]string{"Lakehouse": "properties.deltaTable", "Eventhouse": "properties.tableName", "Reflex": "properties"}[req.Type]}
		d, err := a.checkBinding(c, es, req, func(f string) string { return "eventstream.json " + n.path + "." + names[f] })
		if err != nil {
			return nil, err
		}
		formatted, err := formatChain(n, chain, specs)
		if err != nil {
			return nil, err
		}
		chains = append(chains, formatted)
		for _, q := range p.dests {
			if q.d.Type == d.Type && q.d.ItemID == d.ItemID && q.d.Target == d.Target {
				return nil, badNode(n, "properties", "destination %q already delivers to the same target", q.n.name)
			}
		}
		p.dests = append(p.dests, plannedDest{n: n, d: d})
	}
	for i, ch := range chains {
		if i > 0 && string(ch) != string(chains[0]) {
			p.own = true
		}
	}
	for i := range p.dests {
		s := specOf(p.dests[i].d)
		s.Name = p.dests[i].n.name
		if p.own {
			s.OwnOperators, s.Operators = true, chains[i]
		}
		p.dests[i].d.Spec, _ = json.Marshal(s)
	}
	if !p.own && len(chains) > 0 {
		p.shared = chains[0]
	}
	// DerivedStreams: each topic is filled through the chain before it.
	for _, n := range t.streams {
		if n == def0 {
			continue
		}
		chain, err := chainOf(t, def0, n)
		if err != nil {
			return nil, err
		}
		formatted, err := formatChain(n, chain, specs)
		if err != nil {
			return nil, err
		}
		p.derived = append(p.derived, plannedStream{n: n, chain: formatted})
	}

	// Ids: the DefaultStream is the emulator's stream; sources, derived
	// streams and CustomEndpoint destinations keep the id they had (by id,
	// then by name) on update, and get a new one otherwise.
	def0.raw["id"] = p.streamID
	for _, n := range append(append(slices.Clone(t.sources), t.streams...), t.destinations...) {
		if n == def0 || (n.kind == "destination" && !n.is("CustomEndpoint")) {
			continue
		}
		id := ""
		if old != nil {
			for _, o := range *old.list(n.kind) {
				if o.typ == n.raw["type"] && (o.id() != "" && strings.EqualFold(o.id(), n.id()) || o.name == n.name && id == "") {
					id = o.id()
				}
			}
		}
		if id == "" {
			id = uuid.NewString()
		}
		n.raw["id"] = id
		if n.kind != "stream" {
			p.nodeIDs = append(p.nodeIDs, id)
		}
	}
	for _, n := range t.operators {
		delete(n.raw, "id") // operators carry no id
	}
	if len(def.Platform) > 0 {
		var pl struct {
			Metadata struct {
				DisplayName *string `json:"displayName"`
				Description *string `json:"description"`
			} `json:"metadata"`
		}
		if err := json.Unmarshal(def.Platform, &pl); err != nil {
			return nil, fabricerr.New(http.StatusBadRequest, CorruptedPayload, ".platform: %s", describeJSON(err))
		}
		p.displayName, p.description = pl.Metadata.DisplayName, pl.Metadata.Description
	}
	return p, nil
}

// chainOf walks a destination's input back to the DefaultStream and returns
// the operators on the way, first first.
func chainOf(t *topology, def0, n *node) ([]*node, error) {
	var chain []*node
	cur := n
	for steps := 0; ; steps++ {
		if steps > len(t.byName)+1 {
			return nil, badNode(n, "inputNodes", "its inputs form a cycle")
		}
		if len(cur.inputs) != 1 {
			return nil, badNode(cur, "inputNodes", "want exactly one input")
		}
		in := t.byName[cur.inputs[0]]
		switch {
		case in == nil:
			return nil, badNode(cur, "inputNodes", "%q is not a node of this definition", cur.inputs[0])
		case in == def0:
			slices.Reverse(chain)
			return chain, nil
		case in.kind == "source":
			return nil, badNode(cur, "inputNodes", "%q is a source; sources feed the DefaultStream %q", in.name, def0.name)
		case in.kind == "destination":
			return nil, badNode(cur, "inputNodes", "%q is a destination", in.name)
		case in.kind == "operator":
			chain = append(chain, in)
		}
		cur = in
	}
}

// formatChain compiles the operator nodes of chain (specs by name) into the
// pipeline's stored form for node n; empty without operators.
func formatChain(n *node, chain []*node, specs map[string]map[string]any) (json.RawMessage, error) {
	var ops []map[string]any
	for _, op := range chain {
		ops = append(ops, specs[op.name])
	}
	parsed, err := parseChain(ops)
	if err != nil {
		return nil, opError(n, err)
	}
	if len(parsed) == 0 {
		return nil, nil
	}
	return pipeline.Format(parsed)
}

func parseChain(specs []map[string]any) ([]pipeline.Operator, error) {
	if len(specs) == 0 {
		return nil, nil
	}
	b, _ := json.Marshal(specs)
	return pipeline.Parse(b)
}

func opError(n *node, err error) error {
	var nse *pipeline.NotSupportedError
	var ve *pipeline.ValidationError
	switch {
	case errors.As(err, &nse):
		return fabricerr.New(http.StatusBadRequest, EventstreamNodeNotSupported, "%s %q (%s): %v", n.kind, n.name, n.path, err).
			WithDetails(fabricerr.Detail{ErrorCode: EventstreamNodeNotSupported, Message: nse.Field})
	case errors.As(err, &ve):
		return fabricerr.BadParameter("eventstream.json "+n.path, "%s %q: %s: %s", n.kind, n.name, ve.Field, ve.Message)
	}
	return fabricerr.BadParameter("eventstream.json "+n.path, "%s %q: %v", n.kind, n.name, err)
}

func str(m map[string]any, key string) string { s, _ := m[key].(string); return s }

// ---- Fabric operator shapes → pipeline specs ----

func operatorSpec(n *node) (map[string]any, error) {
	p := n.props
	switch strings.ToLower(n.typ) {
	case "filter":
		n.raw["type"] = "Filter"
		conds, _ := p["conditions"].([]any)
		if len(conds) == 0 {
			return nil, badNode(n, "properties.conditions", "want a non-empty array of {column, operatorType, value}")
		}
		var out []any
		for i, x := range conds {
			at := fmt.Sprintf("properties.conditions[%d]", i)
			cm, ok := x.(map[string]any)
			if !ok {
				return nil, badNode(n, at, "want {column, operatorType, value}")
			}
			field, err := columnName(n, at+".column", cm["column"])
			if err != nil {
				return nil, err
			}
			op := firstNonEmpty(str(cm, "operatorType"), str(cm, "operator"))
			if op == "" {
				return nil, badNode(n, at+".operatorType", "required")
			}
			c := map[string]any{"field": field, "op": op}
			if v, ok := cm["value"]; ok && v != nil {
				val, err := literal(n, at+".value", v)
				if err != nil {
					return nil, err
				}
				c["value"] = val
			}
			out = append(out, c)
		}
		cond := out[0]
		if len(out) > 1 {
			cond = map[string]any{"and": out}
		}
		return map[string]any{"type": "Filter", "name": n.name, "condition": cond}, nil
	case "managefields":
		n.raw["type"] = "ManageFields"
		cols, _ := p["columns"].([]any)
		if len(cols) == 0 {
			return nil, badNode(n, "properties.columns", "want a non-empty array of {type, alias, properties}")
		}
		var keep []any
		rename, cast := map[string]any{}, map[string]any{}
		var compute []map[string]any
		var computeAt []string
		for i, x := range cols {
			at := fmt.Sprintf("properties.columns[%d]", i)
			cm, ok := x.(map[string]any)
			if !ok {
				return nil, badNode(n, at, "want {type, alias, properties}")
			}
			cp, _ := cm["properties"].(map[string]any)
			typ := str(cm, "type")
			switch strings.ToLower(typ) {
			case "rename", "cast":
			case "functioncall":
				c, err := functionCall(n, at, cm, cp)
				if err != nil {
					return nil, err
				}
				compute, computeAt = append(compute, c), append(computeAt, at)
				continue
			default:
				return nil, badNode(n, at+".type", "%q is not Rename, Cast or FunctionCall", typ)
			}
			col, err := columnName(n, at+".properties.column", cp["column"])
			if err != nil {
				return nil, err
			}
			if !slices.Contains(keep, any(col)) {
				keep = append(keep, col)
			}
			if strings.EqualFold(typ, "cast") {
				tt := str(cp, "targetDataType")
				if tt == "" {
					return nil, badNode(n, at+".properties.targetDataType", "required")
				}
				cast[col] = tt
			}
			if alias := str(cm, "alias"); alias != "" && alias != col {
				if prev, ok := rename[col]; ok && prev != alias {
					return nil, badNode(n, at+".alias", "column %q is already output as %q; the emulator outputs a column once", col, prev)
				}
				rename[col] = alias
			}
		}
		keep, err := keepComputed(n, keep, rename, compute, computeAt)
		if err != nil {
			return nil, err
		}
		spec := map[string]any{"type": "ManageFields", "name": n.name, "keep": keep}
		if len(rename) > 0 {
			spec["rename"] = rename
		}
		if len(cast) > 0 {
			spec["cast"] = cast
		}
		if len(compute) > 0 {
			spec["compute"] = compute
		}
		return spec, nil
	case "aggregate":
		// Rolling per-event aggregates: {aggregations: [{aggregationFunction
		// (or aggregateFunction), column, alias?, partitionBy?: [column],
		// duration}]} → pipeline.RollingAggregate on arrival time.
		n.raw["type"] = "Aggregate"
		aggs, _ := p["aggregations"].([]any)
		if len(aggs) == 0 {
			return nil, badNode(n, "properties.aggregations", "want a non-empty array of {aggregationFunction, column, alias, partitionBy, duration}")
		}
		var out []any
		for i, x := range aggs {
			at := fmt.Sprintf("properties.aggregations[%d]", i)
			a, am, err := aggregation(n, at, x, "{aggregationFunction, column, alias, partitionBy, duration}")
			if err != nil {
				return nil, err
			}
			pb, _ := am["partitionBy"].([]any)
			keys, err := columnNames(n, at+".partitionBy", pb)
			if err != nil {
				return nil, err
			}
			if len(keys) > 0 {
				a["partitionBy"] = keys
			}
			if d, ok := am["duration"]; ok && d != nil {
				a["duration"] = d
			}
			out = append(out, a)
		}
		return map[string]any{"type": "Aggregate", "name": n.name, "aggregates": out}, nil
	case "groupby":
		n.raw["type"] = "GroupBy"
		aggs, _ := p["aggregations"].([]any)
		var out []any
		for i, x := range aggs {
			a, _, err := aggregation(n, fmt.Sprintf("properties.aggregations[%d]", i), x, "{aggregationFunction, column, alias}")
			if err != nil {
				return nil, err
			}
			out = append(out, a)
		}
		gb, _ := p["groupBy"].([]any)
		keys, err := columnNames(n, "properties.groupBy", gb)
		if err != nil {
			return nil, err
		}
		spec := map[string]any{"type": "GroupBy", "name": n.name, "aggregates": out}
		if len(keys) > 0 {
			spec["keys"] = keys
		}
		w, _ := p["window"].(map[string]any)
		if w == nil {
			return nil, badNode(n, "properties.window", "required: {type: Tumbling|Hopping, properties: {duration, hopSize?, offset?}}")
		}
		wp, _ := w["properties"].(map[string]any)
		win := map[string]any{"kind": str(w, "type")}
		for from, to := range map[string]string{"duration": "duration", "hopSize": "hop", "offset": "offset"} {
			if v, ok := wp[from]; ok && v != nil {
				win[to] = v
			}
		}
		spec["window"] = win
		return spec, nil
	}
	return nil, badNode(n, "type", "%q is not one of Filter, ManageFields, Aggregate, GroupBy, Join, Union, Expand, SQL", n.typ)
}

// aggregation maps one of Fabric's aggregations at (either spelling of the
// function) to a pipeline aggregate {fn, field?, as?}; it returns the
// source object too, for the fields only some operators have.
func aggregation(n *node, at string, x any, want string) (map[string]any, map[string]any, error) {
	am, ok := x.(map[string]any)
	if !ok {
		return nil, nil, badNode(n, at, "want %s", want)
	}
	a := map[string]any{"fn": firstNonEmpty(str(am, "aggregationFunction"), str(am, "aggregateFunction"))}
	if col, ok := am["column"]; ok && col != nil {
		f, err := columnName(n, at+".column", col)
		if err != nil {
			return nil, nil, err
		}
		a["field"] = f
	}
	if alias := str(am, "alias"); alias != "" {
		a["as"] = alias
	}
	return a, am, nil
}

// columnNames maps a list of column references at (groupBy, partitionBy).
func columnNames(n *node, at string, cols []any) ([]any, error) {
	var out []any
	for i, c := range cols {
		k, err := columnName(n, fmt.Sprintf("%s[%d]", at, i), c)
		if err != nil {
			return nil, err
		}
		out = append(out, k)
	}
	return out, nil
}

// columnName reads a column reference: {columnName, columnPathSegments?:
// [string | {field}], columnPath?} (or a bare string), dotted.
func columnName(n *node, at string, v any) (string, error) {
	if s, ok := v.(string); ok && s != "" {
		return s, nil
	}
	m, ok := v.(map[string]any)
	if !ok {
		return "", badNode(n, at, "want a column reference {columnName}")
	}
	name := str(m, "columnName")
	if name == "" {
		return "", badNode(n, at+".columnName", "required")
	}
	parts := []string{name}
	for _, key := range []string{"columnPathSegments", "columnPath"} {
		switch segs := m[key].(type) {
		case string:
			if segs != "" {
				parts = append(parts, segs)
			}
		case []any:
			for _, s := range segs {
				switch x := s.(type) {
				case string:
					parts = append(parts, x)
				case map[string]any:
					if f := str(x, "field"); f != "" {
						parts = append(parts, f)
					}
				}
			}
		}
	}
	return strings.Join(parts, "."), nil
}

// literal reads {dataType, value} into the JSON value the pipeline compares.
func literal(n *node, at string, v any) (any, error) {
	m, ok := v.(map[string]any)
	if !ok {
		return v, nil // a bare JSON value
	}
	if _, isCol := m["columnName"]; isCol {
		return nil, badNode(n, at, "comparing with another column is not built; compare with a literal {dataType, value}")
	}
	raw := m["value"]
	s, isStr := raw.(string)
	switch strings.ToLower(str(m, "dataType")) {
	case "bigint", "float":
		if isStr {
			if _, err := strconv.ParseFloat(s, 64); err != nil {
				return nil, badNode(n, at+".value", "%q is not a number (dataType %s)", s, str(m, "dataType"))
			}
			return json.Number(s), nil
		}
	case "bit":
		if isStr {
			b, err := strconv.ParseBool(s)
			if err != nil {
				return nil, badNode(n, at+".value", "%q is not a boolean (dataType Bit)", s)
			}
			return b, nil
		}
	}
	return raw, nil
}

// ---- applying a plan ----

// applyDefinition stores the plan on es (already stored, with its stream)
// and reconciles the destinations: kept (same type, item and table),
// created, or removed when the definition no longer has them.
func (a *API) applyDefinition(ctx context.Context, es *store.Item, p *definitionPlan) error {
	existing, err := a.userDestinations(ctx, es.ID)
	if err != nil {
		return err
	}
	endpointsBefore := endpointIDs(*es)
	keep := map[string]bool{}
	for i := range p.dests {
		d := &p.dests[i].d
		d.ID = uuid.NewString()
		for _, o := range existing {
			if o.Type == d.Type && o.ItemID == d.ItemID && o.Target == d.Target {
				d.ID = o.ID
			}
		}
		keep[d.ID] = true
		p.dests[i].n.raw["id"] = d.ID
	}
	props := streamsOf(*es)
	p.def.Topology = p.topo.marshal()
	props.Definition = &p.def
	props.Operators = p.shared
	props.Streams[0].Name = p.streamName
	oldStreams := props.Streams
	props.Streams = props.Streams[:1:1]
	live := append(slices.Clone(p.nodeIDs), props.Streams[0].ID)
	for id := range keep {
		live = append(live, id)
	}
	// A paused Eventstream keeps its new DerivedStreams paused too.
	esPaused := slices.Contains(props.Paused, strings.ToLower(props.Streams[0].ID))
	for _, ps := range p.derived {
		id := ps.n.id()
		props.Streams = append(props.Streams, stream{ID: id, Name: ps.n.name, Type: derivedStreamType, Topic: derivedTopic(es.ID, id)})
		live = append(live, strings.ToLower(id))
		if esPaused && !slices.ContainsFunc(oldStreams, func(s stream) bool { return strings.EqualFold(s.ID, id) }) {
			props.Paused = append(props.Paused, strings.ToLower(id))
		}
	}
	props.Paused = slices.DeleteFunc(props.Paused, func(id string) bool { return !slices.Contains(live, id) })
	es.Properties, _ = json.Marshal(props)
	if p.displayName != nil {
		es.DisplayName = *p.displayName
	}
	if p.description != nil {
		es.Description = *p.description
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
		if err := a.stopDrain(o.ID); err != nil {
			return err
		}
		if err := a.cfg.Store.DeleteDestination(ctx, o.ID); err != nil && !errors.Is(err, store.ErrNotFound) {
			return err
		}
	}
	for _, pd := range p.dests {
		d, created, err := a.applyBinding(ctx, pd.d, false)
		if err != nil {
			return err
		}
		if !created { // the operators may have changed under it
			if err := a.startDrain(ctx, d); err != nil {
				return err
			}
		}
	}
	if err := a.applyDerivedStreams(ctx, *es, p, oldStreams); err != nil {
		return err
	}
	a.syncSources(es.ID) // SampleData and Kafka sources start, restart or stop
	gone := slices.DeleteFunc(endpointsBefore, func(id string) bool { return slices.Contains(endpointIDs(*es), id) })
	return a.closeEndpoints(ctx, gone...)
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
			return notForItem(es)
		}
		if f := c.r.URL.Query().Get("format"); f != "" && !strings.EqualFold(f, "eventstream") {
			return fabricerr.BadParameter("format", "%q is not a format of Eventstream definitions", f)
		}
		topo, err := a.renderTopology(c.r.Context(), es, false)
		if err != nil {
			return err
		}
		props := streamsOf(es)
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
		return c.JSON(http.StatusOK, map[string]any{"definition": definitionJSON{Parts: []definitionPart{
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
			return notForItem(es)
		}
		updateMeta := false
		if q := c.r.URL.Query().Get("updateMetadata"); q != "" {
			if updateMeta, err = strconv.ParseBool(q); err != nil {
				return fabricerr.BadParameter("updateMetadata", "want true or false, got %q", q)
			}
		}
		var req struct {
			Definition json.RawMessage `json:"definition"`
		}
		if err := a.decode(c, &req); err != nil {
			return err
		}
		if len(req.Definition) == 0 || string(req.Definition) == "null" {
			return fabricerr.BadParameter("definition", "required")
		}
		def, err := decodeDefinition(req.Definition)
		if err != nil {
			return err
		}
		p, err := a.planDefinition(c, es, def)
		if err != nil {
			return err
		}
		if !updateMeta {
			p.displayName, p.description = nil, nil
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

func (a *API) checkMetadata(p *definitionPlan) error {
	if p.displayName != nil {
		if err := validItemName(TypeEventstream, *p.displayName); err != nil {
			return err
		}
	}
	if p.description != nil {
		return validItemDescription(*p.description)
	}
	return nil
}

func notForItem(it store.Item) error {
	return fabricerr.New(http.StatusBadRequest, "OperationNotSupportedForItem",
		"item %s is a %s; this emulator keeps definitions of Eventstreams only", it.ID, it.Type)
}
