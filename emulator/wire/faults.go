package wire

import "time"

// Doors a fault rule targets (FaultTarget.Door).
const (
	FaultDoorREST        = "rest"        // Fabric's REST API and the emulator's HTTP routes
	FaultDoorKafka       = "kafka"       // the custom endpoint's Kafka protocol
	FaultDoorEventHubs   = "eventhubs"   // the custom endpoint's Event Hubs protocol (AMQP 1.0)
	FaultDoorDestination = "destination" // a destination's writes (Lakehouse, Eventhouse, …)
	FaultDoorBroker      = "broker"      // the Kafka broker behind the emulator
)

// Effects a fault rule injects (FaultEffect.Kind).
const (
	FaultThrottle     = "throttle"     // 429 + Retry-After; Kafka throttle time; Event Hubs server-busy
	FaultError        = "error"        // an error answer: an HTTP status, a Kafka error code, an AMQP condition
	FaultDrop         = "drop"         // the connection is closed without an answer
	FaultLatency      = "latency"      // the answer (or the write) waits latencyMs first
	FaultWriteFailure = "writeFailure" // a destination's write fails (and is retried)
	FaultUnreachable  = "unreachable"  // the broker does not answer
)

// Operations of an Eventstream a rule may narrow to (FaultTarget.Operation).
const (
	FaultProduce = "produce"
	FaultConsume = "consume"
)

// FaultTarget is what a fault rule applies to. Empty fields match
// anything; Door may be empty only when Eventstream narrows the rule (then
// every door that puts events into or takes them out of it).
type FaultTarget struct {
	// Door is rest, kafka, eventhubs, destination or broker.
	Door string `json:"door,omitempty"`
	// Route is, for rest, a registered route pattern ("POST
	// /v1/workspaces/{ws}/items") or a path pattern matched with Go's
	// path.Match ("/v1/workspaces/*/items").
	Route string `json:"route,omitempty"`
	// Method narrows a rest rule to one HTTP method.
	Method string `json:"method,omitempty"`
	// Eventstream narrows the rule to one Eventstream (its item id).
	Eventstream string `json:"eventstream,omitempty"`
	// Operation narrows the rule to produce or consume.
	Operation string `json:"operation,omitempty"`
	// Destination narrows a destination rule to one destination (its id).
	Destination string `json:"destination,omitempty"`
}

// FaultEffect is what a rule injects.
type FaultEffect struct {
	// Kind is throttle, error, drop, latency, writeFailure or unreachable.
	Kind string `json:"kind"`
	// RetryAfterSeconds is the Retry-After of a REST throttle (default 1).
	RetryAfterSeconds int `json:"retryAfterSeconds,omitempty"`
	// ThrottleMs is the throttle time of a Kafka throttle (default 1000).
	ThrottleMs int `json:"throttleMs,omitempty"`
	// Status is the HTTP status of a REST error (default 503).
	Status int `json:"status,omitempty"`
	// KafkaError names the Kafka error code of a Kafka error
	// (default NOT_ENOUGH_REPLICAS, which producers retry).
	KafkaError string `json:"kafkaError,omitempty"`
	// AMQPCondition is the condition of an Event Hubs error (default
	// com.microsoft:server-busy).
	AMQPCondition string `json:"amqpCondition,omitempty"`
	// LatencyMs is the delay of a latency effect.
	LatencyMs int `json:"latencyMs,omitempty"`
	// Message replaces the answer's default message.
	Message string `json:"message,omitempty"`
}

// FaultRule is one fault to inject: a target, an effect, and the limits
// that end it. A rule with neither count nor duration lasts
// DefaultFaultDuration.
type FaultRule struct {
	// ID names the rule; the emulator picks one when empty.
	ID     string      `json:"id,omitempty"`
	Target FaultTarget `json:"target"`
	Effect FaultEffect `json:"effect"`
	// Count ends the rule after this many injections (0: no count).
	Count int `json:"count,omitempty"`
	// DurationSeconds ends the rule this long after it is added.
	DurationSeconds float64 `json:"durationSeconds,omitempty"`
	// Probability injects the fault into that share of the matching calls
	// (0 or 1: every one), drawn from a generator seeded with Seed.
	Probability float64 `json:"probability,omitempty"`
	Seed        int64   `json:"seed,omitempty"`
}

// DefaultFaultDuration is how long a rule with neither count nor duration
// lasts.
const DefaultFaultDuration = 10 * time.Minute

// FaultRuleState is a rule as GET /_emulator/faults lists it.
type FaultRuleState struct {
	FaultRule
	CreatedAt time.Time  `json:"createdAt"`
	ExpiresAt *time.Time `json:"expiresAt,omitempty"`
	// Injected counts the faults the rule injected so far.
	Injected int `json:"injected"`
}

// FaultRules is the answer of GET /_emulator/faults.
type FaultRules struct {
	Value []FaultRuleState `json:"value"`
}
