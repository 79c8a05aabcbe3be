package wire

import "strings"

// Node statuses (Fabric's NodeStatus) the emulator answers.
const (
	StatusRunning  = "Running"
	StatusPaused   = "Paused"
	StatusFailed   = "Failed"  // Error says why
	StatusWarning  = "Warning" // it runs, but Error says what is wrong for now
	StatusUnknown  = "Unknown" // nothing delivers (no broker)
	StatusCreating = "Creating"
)

// Topology is GET …/eventstreams/{id}/topology: an Eventstream's nodes by
// kind, with their runtime status.
type Topology struct {
	Sources      []Node `json:"sources"`
	Streams      []Node `json:"streams"`
	Operators    []Node `json:"operators"`
	Destinations []Node `json:"destinations"`
	// CompatibilityLevel is the definition's, "1.0" by default.
	CompatibilityLevel string `json:"compatibilityLevel"`
}

// Source returns the source named name (the zero Node when there is none).
func (t Topology) Source(name string) Node { return byName(t.Sources, name) }

// Destination returns the destination named name (the zero Node when there is none).
func (t Topology) Destination(name string) Node { return byName(t.Destinations, name) }

// byName finds the node named name, or the zero Node.
func byName(nodes []Node, name string) Node {
	for _, n := range nodes {
		if n.Name == name {
			return n
		}
	}
	return Node{}
}

// Node is a source, stream, operator or destination of a topology (also
// GET …/sources/{id}), with the id the emulator assigned. A definition's
// node keeps the fields it was given: inputNodes, properties and
// inputSchemas are absent when the definition left them out.
type Node struct {
	// ID is the node's id; a native operator has none.
	ID string `json:"id,omitempty"`
	// Name is the node's name, unique in the Eventstream.
	Name string `json:"name"`
	// Type is the node's type: CustomEndpoint, DefaultStream, Lakehouse, …
	Type string `json:"type"`
	// Properties are the node's type-specific settings.
	Properties map[string]any `json:"properties,omitzero"`
	// InputNodes are the nodes it reads (none for a source).
	InputNodes []NodeRef `json:"inputNodes,omitzero"`
	// InputSchemas are a definition's schemas of the node's input, as given.
	InputSchemas []any `json:"inputSchemas,omitzero"`
	// Status is the node's runtime status (sources and destinations; none
	// for streams and operators).
	Status string `json:"status,omitempty"`
	// Error says why a Failed or Warning node is so (absent otherwise).
	Error *NodeError `json:"error,omitempty"`
}

// Is reports whether the node is of type typ, in any case.
func (n Node) Is(typ string) bool { return strings.EqualFold(n.Type, typ) }

// NodeRef names another node of the topology.
type NodeRef struct {
	Name string `json:"name"`
}

// NodeError is the error of a topology node (Fabric's ErrorInfo): a stable
// code and a message.
type NodeError struct {
	ErrorCode    ErrorCode `json:"errorCode"`
	ErrorMessage string    `json:"errorMessage"`
}

// DestinationNode is GET …/eventstreams/{id}/destinations/{destinationId}:
// the destination's topology node and, for a binding, the emulator's
// native view beside it.
type DestinationNode struct {
	Node
	// WorkspaceID and ItemID name the bound item.
	WorkspaceID string `json:"workspaceId,omitempty"`
	ItemID      string `json:"itemId,omitempty"`
	// Table and Database are where it writes (none for an Activator).
	Table    string `json:"table,omitempty"`
	Database string `json:"database,omitempty"`
	// Delivery counts what the binding did (absent before it first runs).
	Delivery *Delivery `json:"delivery,omitempty"`
	// The emulator's delivery settings (absent when left at their defaults).
	ErrorPolicy     string `json:"errorPolicy,omitempty"`
	DeadLetterTopic string `json:"deadLetterTopic,omitempty"`
	SchemaMode      string `json:"schemaMode,omitempty"`
}
