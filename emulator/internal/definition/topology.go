package definition

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// Node is one node of eventstream.json, kept as given (Raw) for round trips.
type Node struct {
	Kind   string         // source, stream, operator, destination
	Path   string         // e.g. sources[0]
	Raw    map[string]any // the node object as given, ids and types set by Compile
	Name   string
	Type   string // as given; Raw["type"] holds the canonical spelling
	Props  map[string]any
	Inputs []string // the names of its inputNodes
}

// ID returns the node's id ("" when it has none).
func (n *Node) ID() string { s, _ := n.Raw["id"].(string); return s }

// Is reports whether the node is of type typ, in any case.
func (n *Node) Is(typ string) bool { return strings.EqualFold(n.Type, typ) }

// Str returns the string property key of n ("" when absent or not a string).
func (n *Node) Str(key string) string { return str(n.Props, key) }

// Topology is eventstream.json: its nodes by kind and by name.
type Topology struct {
	raw                                       map[string]any
	Sources, Streams, Operators, Destinations []*Node
	ByName                                    map[string]*Node
}

var topologyKeys = []struct{ key, kind string }{
	{"sources", "source"}, {"streams", "stream"}, {"operators", "operator"}, {"destinations", "destination"},
}

// List returns the nodes of kind (source, stream, operator, destination).
func (t *Topology) List(kind string) *[]*Node {
	switch kind {
	case "source":
		return &t.Sources
	case "stream":
		return &t.Streams
	case "operator":
		return &t.Operators
	}
	return &t.Destinations
}

// ParseTopology reads eventstream.json; node names must be unique.
func ParseTopology(data []byte) (*Topology, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	t := &Topology{ByName: map[string]*Node{}}
	if err := dec.Decode(&t.raw); err != nil || t.raw == nil {
		return nil, &Refusal{Kind: Corrupted, Message: "eventstream.json is not a JSON object: ", JSON: err}
	}
	if err := checkNumbers(t.raw, "eventstream.json"); err != nil {
		return nil, err
	}
	for _, k := range topologyKeys {
		v, ok := t.raw[k.key]
		if !ok || v == nil {
			t.raw[k.key] = []any{}
			continue
		}
		list, ok := v.([]any)
		if !ok {
			return nil, badField("eventstream.json "+k.key, "want an array")
		}
		for i, item := range list {
			n, err := parseNode(k.kind, fmt.Sprintf("%s[%d]", k.key, i), item)
			if err != nil {
				return nil, err
			}
			if other, dup := t.ByName[n.Name]; dup {
				return nil, badField("eventstream.json "+n.Path+".name", "%q is also the name of %s; node names are unique", n.Name, other.Path)
			}
			t.ByName[n.Name] = n
			l := t.List(k.kind)
			*l = append(*l, n)
		}
	}
	return t, nil
}

// parseNode reads the node at path of kind.
func parseNode(kind, path string, item any) (*Node, error) {
	m, ok := item.(map[string]any)
	if !ok {
		return nil, badField("eventstream.json "+path, "want a node object")
	}
	n := &Node{Kind: kind, Path: path, Raw: m}
	n.Name, _ = m["name"].(string)
	n.Type, _ = m["type"].(string)
	if strings.TrimSpace(n.Name) == "" {
		return nil, badField("eventstream.json "+path+".name", "required")
	}
	if n.Type == "" {
		return nil, badField("eventstream.json "+path+".type", "required (node %q)", n.Name)
	}
	switch p := m["properties"].(type) {
	case map[string]any:
		n.Props = p
	case nil:
		n.Props = map[string]any{}
	default:
		return nil, badField("eventstream.json "+path+".properties", "want an object (node %q)", n.Name)
	}
	in, ok := m["inputNodes"]
	if !ok || in == nil {
		return n, nil
	}
	ins, ok := in.([]any)
	if !ok {
		return nil, badField("eventstream.json "+path+".inputNodes", "want an array of {name} (node %q)", n.Name)
	}
	for j, x := range ins {
		xm, _ := x.(map[string]any)
		name, _ := xm["name"].(string)
		if name == "" {
			return nil, badField(fmt.Sprintf("eventstream.json %s.inputNodes[%d].name", path, j), "required (node %q)", n.Name)
		}
		n.Inputs = append(n.Inputs, name)
	}
	return n, nil
}

// Field returns the top-level field key of eventstream.json (such as
// compatibilityLevel) and whether it is there.
func (t *Topology) Field(key string) (any, bool) { v, ok := t.raw[key]; return v, ok }

// Marshal renders the topology as stored (node objects as given, with ids).
func (t *Topology) Marshal() json.RawMessage {
	for _, k := range topologyKeys {
		l := *t.List(k.kind)
		arr := make([]any, len(l))
		for i, n := range l {
			arr[i] = n.Raw
		}
		t.raw[k.key] = arr
	}
	if _, ok := t.raw["compatibilityLevel"]; !ok {
		t.raw["compatibilityLevel"] = "1.0"
	}
	out, _ := json.Marshal(t.raw)
	return out
}

func str(m map[string]any, key string) string { s, _ := m[key].(string); return s }

// checkNumbers refuses a number no JSON reader can hold as a double
// (1e700): the topology is stored and answered as sent, and getDefinition
// must stay readable by every client.
func checkNumbers(v any, path string) error {
	switch x := v.(type) {
	case json.Number:
		if _, err := x.Float64(); err != nil {
			return badField(path, "the number %s is out of range for a double", x)
		}
	case map[string]any:
		for k, e := range x {
			if err := checkNumbers(e, path+"."+k); err != nil {
				return err
			}
		}
	case []any:
		for i, e := range x {
			if err := checkNumbers(e, fmt.Sprintf("%s[%d]", path, i)); err != nil {
				return err
			}
		}
	}
	return nil
}
