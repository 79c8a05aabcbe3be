package control

import (
	"sync"
	"time"

	"github.com/fabrictest/fabrictest/emulator/internal/broker"
	"github.com/fabrictest/fabrictest/emulator/internal/faults"
	"github.com/fabrictest/fabrictest/emulator/internal/runtime"
	"github.com/fabrictest/fabrictest/emulator/internal/store"
)

// Ingest is the one seam every door (the HTTP Custom source, the custom
// endpoint's Kafka gateway, and the Event Hubs door after them) calls to
// put events into an Eventstream. A door brings a protocol and nothing
// else; the seam does the rest, in this order:
//
//  1. Authorise. A Caller is a principal, authorised by its role in the
//     Eventstream's workspace (Contributor or higher, as every write of
//     Fabric's Eventstream API), or a key Grant that Authenticate gave for
//     a shared access key of a CustomEndpoint source (a connection string,
//     as the Kafka door's SASL PLAIN password or, later, a SAS token).
//  2. Check the target: the node exists, is not a DerivedStream (its topic
//     holds its operators' output), is not paused, and a broker is there.
//  3. Check the limits of every event (CheckEvent): Fabric's 1 MB per
//     event (key, value and headers together), and a JSON object value
//     that no Delta table could hold.
//  4. Write to the broker (Lane.Write), or, for a door that forwards the
//     client's own record batches (the Kafka gateway), be told what was
//     forwarded (Forwarded).
//  5. Count data insights, by one rule for every door (below).
//  6. Wait for delivery when the door asks for it (Delivered): the HTTP
//     produce answers once the Eventstream's destinations have the events,
//     as it always has; a Kafka or Event Hubs client is answered once the
//     broker has them (Accepted), as Event Hubs answers.
//
// # Data insights
//
// Microsoft documents the metrics per node (fabric-docs, "Monitor the
// status and performance of an eventstream"): a stream node's
// IncomingMessages and IncomingBytes are the events sent to the
// eventstream; a source node's Input events and Input event bytes the
// event data the engine takes from the source, Output events what it sends
// on. The page lists those source metrics for Azure Event Hubs and IoT Hub
// sources and is silent on a CustomEndpoint source; a custom endpoint is an
// event hub the user sends to, so the emulator counts it as it counts an
// Event Hubs source. The rule, whatever the door:
//
//   - the stream the events go to counts IncomingMessages (events) and
//     IncomingBytes (the events' value bytes);
//   - the CustomEndpoint source they came through (the HTTP route's
//     {sourceId}, or the node whose key the Kafka or Event Hubs client
//     holds) counts Input events and Output events (events) and Input
//     event bytes (value bytes); a produce addressed to a stream's own id
//     counts no source;
//   - events count once the broker accepted them (HTTP), or once they are
//     forwarded to it (Kafka: the gateway does not read the broker's
//     answer, and a batch the broker refuses was still counted);
//   - bytes are value bytes only, not keys, headers or framing; a
//     compressed Kafka batch counts its values decompressed.
//
// Destinations count what they receive and write (package runtime).
//
// # Keys
//
// Authenticate keeps what it learnt about a key name (the keys, the node,
// its topic, its pause state) so that a connection does not parse the
// Eventstream's definition again: the entry holds the definition bytes it
// was made from and is made again when the stored ones differ (one store
// read per connection, no decode). Forget drops an Eventstream's entries
// (definition change, pause, resume, delete) and ForgetKey a key's (key
// regeneration); either way the next connection reads the store again.
type Ingest struct {
	cfg IngestConfig

	mu   sync.Mutex
	keys map[string]*keyEntry // by key name (SharedAccessKeyName)
	gen  uint64               // counts forgets: a load that saw another does not cache
}

// IngestConfig is what the seam writes to and reads from.
type IngestConfig struct {
	Store   *store.Store
	Broker  *broker.Broker
	Runtime *runtime.Runtime
	// ProduceTimeout bounds a write against a broker that does not
	// acknowledge (default runtime.DefaultProduceTimeout).
	ProduceTimeout time.Duration
	// Faults are the fault rules a test injects (nil: none); a broker
	// rule makes writes fail as an unreachable broker's do.
	Faults *faults.Set
}

// NewIngest returns the seam over cfg's store, broker and runtime.
func NewIngest(cfg IngestConfig) *Ingest {
	if cfg.ProduceTimeout <= 0 {
		cfg.ProduceTimeout = runtime.DefaultProduceTimeout
	}
	return &Ingest{cfg: cfg, keys: map[string]*keyEntry{}}
}

// Target is where events go: a node of an Eventstream of a workspace. Node
// is a stream id or a CustomEndpoint source id. With a Key caller, only
// Node is read: the grant names the Eventstream.
type Target struct {
	Workspace, Eventstream, Node string
}

// Delivery is what a write waits for before it returns.
type Delivery uint8

const (
	// Accepted returns once the broker has the events.
	Accepted Delivery = iota
	// Delivered returns once every destination of the Eventstream has
	// them too (or answers why not: runtime.Await's errors).
	Delivered
)
