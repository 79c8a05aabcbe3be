package definition

import (
	"slices"
	"sort"
	"strings"
)

// ExtensionKey is the property of a Lakehouse or Eventhouse destination
// node that carries the emulator's own delivery settings. Fabric's
// destination schema has no such property: it is an emulator extension,
// to be removed before a definition is deployed to Fabric.
const ExtensionKey = "x-fabrictest"

// Policy is a destination's emulator-only delivery settings, as a native
// binding takes them and as ExtensionKey carries them in a definition:
// the error policy (drop, retry, dlq, fail), the dead-letter topic of dlq,
// and a Lakehouse destination's schema mode (enforce, evolve). The
// resolver checks the values; "" leaves a setting at its default.
type Policy struct {
	ErrorPolicy     string
	DeadLetterTopic string
	SchemaMode      string
}

// extensionFields are the settings ExtensionKey may hold.
var extensionFields = []string{"errorPolicy", "deadLetterTopic", "schemaMode"}

// extension reads destination node n's ExtensionKey property: an object
// of string settings among extensionFields (anything else is refused, so
// that a misspelt setting is not silently ignored).
func extension(n *Node) (Policy, error) {
	raw, ok := n.Props[ExtensionKey]
	if !ok || raw == nil {
		return Policy{}, nil
	}
	field := "properties." + ExtensionKey
	obj, ok := raw.(map[string]any)
	if !ok {
		return Policy{}, BadNode(n, field, "want an object with errorPolicy, deadLetterTopic or schemaMode (an emulator extension)")
	}
	keys := make([]string, 0, len(obj))
	for k := range obj {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if !slices.Contains(extensionFields, k) {
			return Policy{}, BadNode(n, field+"."+k, "not a setting of the emulator extension; want %s", strings.Join(extensionFields, ", "))
		}
		if _, ok := obj[k].(string); !ok {
			return Policy{}, BadNode(n, field+"."+k, "want a string")
		}
	}
	return Policy{ErrorPolicy: str(obj, "errorPolicy"), DeadLetterTopic: str(obj, "deadLetterTopic"), SchemaMode: str(obj, "schemaMode")}, nil
}
