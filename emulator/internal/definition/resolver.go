package definition

import "context"

// Resolver looks up and authorises, for Compile, the items and connections
// a definition refers to. Its errors are returned by Compile unchanged.
type Resolver interface {
	// Source checks source node n of an Eventstream in workspaceID and, for
	// a type the emulator runs (SampleData, Kafka-protocol sources), sets its
	// canonical type in n.Raw and returns run true. It returns false for the
	// other types.
	Source(ctx context.Context, workspaceID string, n *Node) (run bool, err error)
	// Destination checks that the caller may deliver to b's item and that
	// the item takes b's type and table, and returns the resolved target.
	// field names b's fields in errors as the definition names them.
	Destination(ctx context.Context, b Binding, field func(string) string) (Target, error)
}

// Binding is what a Lakehouse, Eventhouse or Activator destination node
// asks for, as the native destinations route takes it.
type Binding struct {
	Type        string // Lakehouse, Eventhouse or Reflex
	ItemID      string
	WorkspaceID string // "" for the Eventstream's
	Table       string
	Database    string
	// IngestionMode is an Eventhouse destination's dataIngestionMode
	// (ProcessedIngestion or DirectIngestion; "" elsewhere).
	IngestionMode string
	// Policy is the node's emulator extension (ExtensionKey), unchecked.
	Policy Policy
	// Batching is a Lakehouse node's minimumRows and
	// maximumDurationInSeconds (nil for other types; nil fields: omitted,
	// Fabric's defaults).
	Batching *BatchSettings
}

// BatchSettings are a Lakehouse destination node's batching properties as
// written (nil: omitted).
type BatchSettings struct {
	MinimumRows, MaximumDurationInSeconds *int64
}

// Target is a checked binding: where a destination delivers.
type Target struct {
	Type        string
	WorkspaceID string
	ItemID      string
	Table       string
	Database    string // an Eventhouse's database, resolved
	// IngestionMode is an Eventhouse destination's, as checked.
	IngestionMode string
	// Policy is the destination's emulator settings, checked (defaults "").
	Policy Policy
	// MinimumRows and MaximumDurationInSeconds are a Lakehouse
	// destination's batching, resolved (0: it commits at once).
	MinimumRows, MaximumDurationInSeconds int64
}
