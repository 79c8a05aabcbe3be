package eventstream

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/fabrictest/fabrictest/emulator/internal/definition"
	"github.com/fabrictest/fabrictest/emulator/internal/store"
	"github.com/fabrictest/fabrictest/emulator/pipeline"
)

// Stream types.
const (
	// DefaultStreamType is the type of the stream every Eventstream has.
	DefaultStreamType = "DefaultStream"
	// DerivedStreamType is the type of a stream fed by operators.
	DerivedStreamType = "DerivedStream"
)

// Stream is one stream of an Eventstream and the Kafka topic behind it.
type Stream struct {
	ID    string `json:"id"`
	Name  string `json:"name"`
	Type  string `json:"type"`
	Topic string `json:"topic"`
}

// Endpoints are the lower-case ids of a definition's CustomEndpoint nodes.
type Endpoints struct {
	Sources      []string `json:"sources,omitempty"`
	Destinations []string `json:"destinations,omitempty"`
}

// Model is the stored properties of an Eventstream.
type Model struct {
	// Streams are the DefaultStream (first) and the DerivedStreams.
	Streams []Stream `json:"streams"`
	// Operators is the chain every destination reads through (a pipeline
	// spec list; empty without operators).
	Operators json.RawMessage `json:"operators,omitempty"`
	// Definition is what the last create or updateDefinition stored.
	Definition *definition.Parts `json:"definition,omitempty"`
	// Paused holds the lower-case ids of paused sources and destinations
	// (and the DefaultStream's id while the whole Eventstream is paused).
	Paused []string `json:"paused,omitempty"`
	// Custom lists the definition's CustomEndpoint nodes, kept beside the
	// definition so a produce need not parse it (nil without a definition).
	Custom *Endpoints `json:"customEndpoints,omitempty"`
	// Run holds the definition's run sources, decoded once when it was
	// stored (nil without a definition, or for a model stored before Run
	// existed: RunSources decodes those).
	Run *RunSources `json:"runSources,omitempty"`
}

// Decode reads the model from it's properties. A model stored before
// Custom existed gets it from its definition.
func Decode(it store.Item) (Model, error) {
	var m Model
	if len(it.Properties) == 0 {
		return m, nil
	}
	if err := json.Unmarshal(it.Properties, &m); err != nil {
		return m, fmt.Errorf("decode Eventstream %s: %w", it.ID, err)
	}
	if m.Definition != nil && m.Custom == nil {
		if err := m.indexEndpoints(); err != nil {
			return m, fmt.Errorf("decode Eventstream %s: %w", it.ID, err)
		}
	}
	return m, nil
}

// Encode stores m in it's properties (not in the store).
func (m Model) Encode(it *store.Item) error {
	b, err := json.Marshal(m)
	if err != nil {
		return fmt.Errorf("encode Eventstream %s: %w", it.ID, err)
	}
	it.Properties = b
	return nil
}

// Load reads the Eventstream id and its model.
func Load(ctx context.Context, st *store.Store, id string) (store.Item, Model, error) {
	it, err := st.GetItem(ctx, id)
	if err != nil {
		return it, Model{}, err
	}
	m, err := Decode(it)
	return it, m, err
}

// Save encodes m into it and updates it in the store.
func Save(ctx context.Context, st *store.Store, it *store.Item, m Model) error {
	if err := m.Encode(it); err != nil {
		return err
	}
	return st.UpdateItem(ctx, *it)
}

// Default is the DefaultStream (zero before provisioning).
func (m Model) Default() Stream {
	if len(m.Streams) == 0 {
		return Stream{}
	}
	return m.Streams[0]
}

// Stream finds the stream id (case-insensitive).
func (m Model) Stream(id string) (Stream, bool) {
	for _, s := range m.Streams {
		if strings.EqualFold(s.ID, id) {
			return s, true
		}
	}
	return Stream{}, false
}

// SetDefinition stores parts as the definition, indexes its
// CustomEndpoint nodes and decodes its run sources.
func (m *Model) SetDefinition(parts definition.Parts) error {
	m.Definition = &parts
	if err := m.indexEndpoints(); err != nil {
		return err
	}
	t, err := m.Topology()
	if err != nil {
		return err
	}
	m.Run = &RunSources{Sources: SourcesOf(t)}
	return nil
}

// Topology parses the stored definition's topology (nil without one).
func (m Model) Topology() (*definition.Topology, error) {
	if m.Definition == nil {
		return nil, nil
	}
	t, err := definition.ParseTopology(m.Definition.Topology)
	if err != nil {
		return nil, fmt.Errorf("parse stored topology: %w", err)
	}
	return t, nil
}

// NodeIDs returns the lower-case ids of the definition's nodes in list
// ("sources" or "destinations") that keep accepts (all when keep is nil).
func (m Model) NodeIDs(list string, keep func(*definition.Node) bool) ([]string, error) {
	t, err := m.Topology()
	if t == nil || err != nil {
		return nil, err
	}
	var out []string
	for _, n := range *t.List(strings.TrimSuffix(list, "s")) {
		if n.ID() != "" && (keep == nil || keep(n)) {
			out = append(out, strings.ToLower(n.ID()))
		}
	}
	return out, nil
}

func (m *Model) indexEndpoints() error {
	custom := func(n *definition.Node) bool { return n.Is("CustomEndpoint") }
	src, err := m.NodeIDs("sources", custom)
	if err != nil {
		return err
	}
	dst, _ := m.NodeIDs("destinations", custom)
	m.Custom = &Endpoints{Sources: src, Destinations: dst}
	return nil
}

// CustomSources are the ids of the definition's CustomEndpoint sources.
func (m Model) CustomSources() []string {
	if m.Custom == nil {
		return nil
	}
	return m.Custom.Sources
}

// CustomDestinations are the ids of the definition's CustomEndpoint destinations.
func (m Model) CustomDestinations() []string {
	if m.Custom == nil {
		return nil
	}
	return m.Custom.Destinations
}

// CustomEndpoints are the ids of every CustomEndpoint node, sources first.
func (m Model) CustomEndpoints() []string {
	return append(slices.Clone(m.CustomSources()), m.CustomDestinations()...)
}

// Pipeline parses the Eventstream's operator chain (nil for none).
func (m Model) Pipeline() ([]pipeline.Operator, error) {
	return ParseOperators(m.Operators)
}

// ParseOperators parses a stored operator chain (nil for none).
func ParseOperators(raw json.RawMessage) ([]pipeline.Operator, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	return pipeline.Parse(raw)
}

// OperatorObjects returns the stored operator chain as JSON objects, in order.
func (m Model) OperatorObjects() ([]map[string]any, error) {
	if len(m.Operators) == 0 {
		return nil, nil
	}
	var chain []map[string]any
	if err := json.Unmarshal(m.Operators, &chain); err != nil {
		return nil, fmt.Errorf("decode operators: %w", err)
	}
	return chain, nil
}
