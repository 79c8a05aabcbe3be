package definition

import (
	"context"
	"encoding/json"
	"slices"

	"github.com/google/uuid"
)

// Parts is what an Eventstream keeps of its definition: the topology
// (with the ids the emulator assigned) and the other two parts as given.
type Parts struct {
	Topology   json.RawMessage `json:"topology"`
	Properties json.RawMessage `json:"properties,omitempty"`
	Platform   json.RawMessage `json:"platform,omitempty"`
}

// Input is a definition to compile for one Eventstream.
type Input struct {
	Parts       Parts
	WorkspaceID string // the Eventstream's workspace
	// StreamID is the id of the Eventstream's DefaultStream; "" gives a new one.
	StreamID string
	// StreamName is the DefaultStream's name when the topology has none.
	StreamName string
	// Previous is the definition stored before (nil on create): sources,
	// DerivedStreams and CustomEndpoint destinations keep their ids.
	Previous *Parts
}

// Plan is a checked definition and the native model it becomes.
type Plan struct {
	Parts    Parts     // as given; Topology is re-rendered by the caller from Topology
	Topology *Topology // with canonical types and ids
	StreamID string    // the DefaultStream's id
	// StreamName is the DefaultStream's name.
	StreamName string
	// Operators is the chain every destination reads through, when they
	// all read the same (OwnOperators false); empty without operators.
	Operators    json.RawMessage
	OwnOperators bool // the chains differ: each destination keeps its own
	Destinations []Destination
	Derived      []DerivedStream // each with its own topic
	// NodeIDs are the ids of the sources and CustomEndpoint destinations.
	NodeIDs []string
	// Schemas are the Avro schemas of the sources in schema mode (empty
	// otherwise): every destination validates its events against them.
	Schemas []string
	// DisplayName and Description are .platform's metadata, when given.
	DisplayName, Description *string
}

// Destination is a Lakehouse, Eventhouse or Activator destination node and
// where it delivers.
type Destination struct {
	Node      *Node
	Target    Target
	Operators json.RawMessage // its own chain; set when Plan.OwnOperators
	// Serialization is how it reads its events: its own
	// inputSerialization, else its sources' (nil: Json).
	Serialization *Serialization
}

// DerivedStream is a DerivedStream node and the operator chain, formatted
// for the pipeline, from the DefaultStream to it (empty without operators).
type DerivedStream struct {
	Node      *Node
	Operators json.RawMessage
}

// Compile checks in, asks r about the items it names and returns its plan,
// changing nothing. Bad definitions are refused with a *Refusal.
func Compile(ctx context.Context, in Input, r Resolver) (*Plan, error) {
	t, err := ParseTopology(in.Parts.Topology)
	if err != nil {
		return nil, err
	}
	p := &Plan{Parts: in.Parts, Topology: t, StreamID: in.StreamID}
	if p.StreamID == "" {
		p.StreamID = uuid.NewString()
	}
	if err := planSources(ctx, in.WorkspaceID, t, r); err != nil {
		return nil, err
	}
	def0, err := planStreams(t, in.StreamName)
	if err != nil {
		return nil, err
	}
	p.StreamName = def0.Name
	specs, err := planOperators(t, def0)
	if err != nil {
		return nil, err
	}
	c := compiler{t: t, def0: def0, specs: specs}
	if err := c.destinations(ctx, p, r); err != nil {
		return nil, err
	}
	if err := c.derived(p); err != nil {
		return nil, err
	}
	if err := c.formats(p); err != nil {
		return nil, err
	}
	var old *Topology
	if in.Previous != nil {
		old, _ = ParseTopology(in.Previous.Topology)
	}
	if err := c.schemaMode(ctx, in.WorkspaceID, p, r, old); err != nil {
		return nil, err
	}
	assignIDs(p, def0, old)
	if err := readPlatform(p); err != nil {
		return nil, err
	}
	return p, nil
}

// compiler is a parsed topology, its DefaultStream and its operators' specs.
type compiler struct {
	t     *Topology
	def0  *Node
	specs map[string][]map[string]any
}

// derived plans the DerivedStreams: each topic is filled through the
// chain before it.
func (c compiler) derived(p *Plan) error {
	for _, n := range c.t.Streams {
		if n == c.def0 {
			continue
		}
		chain, err := c.chain(n)
		if err != nil {
			return err
		}
		p.Derived = append(p.Derived, DerivedStream{Node: n, Operators: chain})
	}
	return nil
}

// chain compiles the operators between the DefaultStream and n.
func (c compiler) chain(n *Node) (json.RawMessage, error) {
	specs, err := chainOf(c.t, c.def0, n, c.specs)
	if err != nil {
		return nil, err
	}
	return formatChain(n, specs)
}

// readPlatform reads .platform's metadata into p.
func readPlatform(p *Plan) error {
	if len(p.Parts.Platform) == 0 {
		return nil
	}
	var pl struct {
		Metadata struct {
			DisplayName *string `json:"displayName"`
			Description *string `json:"description"`
		} `json:"metadata"`
	}
	if err := json.Unmarshal(p.Parts.Platform, &pl); err != nil {
		return &Refusal{Kind: Corrupted, Message: ".platform: ", JSON: err}
	}
	p.DisplayName, p.Description = pl.Metadata.DisplayName, pl.Metadata.Description
	return nil
}

// assignIDs gives the nodes their ids: the DefaultStream is the
// emulator's stream; sources, DerivedStreams and CustomEndpoint
// destinations keep the id they had in old (by id, then by name) and get a
// new one otherwise; operators carry none. Lakehouse, Eventhouse and
// Activator destinations get theirs when the caller stores them.
func assignIDs(p *Plan, def0 *Node, old *Topology) {
	t := p.Topology
	def0.Raw["id"] = p.StreamID
	for _, n := range append(append(slices.Clone(t.Sources), t.Streams...), t.Destinations...) {
		if n == def0 || (n.Kind == "destination" && !n.Is("CustomEndpoint")) {
			continue
		}
		id := previousID(old, n)
		if id == "" {
			id = uuid.NewString()
		}
		n.Raw["id"] = id
		if n.Kind != "stream" {
			p.NodeIDs = append(p.NodeIDs, id)
		}
	}
	for _, n := range t.Operators {
		delete(n.Raw, "id")
	}
}

// previousID is the id node n had in old: the same type and either the
// same id or, failing that, the same name.
func previousID(old *Topology, n *Node) string {
	if old == nil {
		return ""
	}
	id := ""
	for _, o := range *old.List(n.Kind) {
		if o.Type == n.Raw["type"] && (o.ID() != "" && equalFold(o.ID(), n.ID()) || o.Name == n.Name && id == "") {
			id = o.ID()
		}
	}
	return id
}
