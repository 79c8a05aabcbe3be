package fabrictest

import (
	"net/http"
	"net/url"
	"time"

	"github.com/fabrictest/fabrictest/emulator"
	"github.com/fabrictest/fabrictest/emulator/wire"
)

// FaultRule is one fault to inject into the emulator (docs/faults.md):
// build one with the constructors below, or write it whole.
type FaultRule = wire.FaultRule

// FaultState is an active rule as the emulator lists it.
type FaultState = wire.FaultRuleState

// WithFaults starts the emulator with fault rules already active.
func WithFaults(rules ...FaultRule) Option {
	return WithEmulatorOptions(emulator.WithFaults(rules...))
}

// InjectFault makes r active (POST /_emulator/faults) and returns its id;
// it fails the test unless the emulator takes it. The rule ends by itself
// (its count or duration) or with RemoveFault or ClearFaults.
func (e *Env) InjectFault(r FaultRule) string {
	e.t.Helper()
	st, err := e.TryInjectFault(r)
	if err != nil {
		e.t.Fatalf("fabrictest: inject a fault: %v", err)
	}
	return st.ID
}

// TryInjectFault is InjectFault that returns the error (an *APIError for
// a rule the emulator refuses) instead of failing the test.
func (e *Env) TryInjectFault(r FaultRule) (FaultState, error) {
	var st FaultState
	_, err := e.do(http.MethodPost, "/_emulator/faults", nil, r, 0, &st)
	return st, err
}

// Faults returns the active fault rules.
func (e *Env) Faults() []FaultState {
	e.t.Helper()
	var out wire.FaultRules
	if _, err := e.do(http.MethodGet, "/_emulator/faults", nil, nil, 0, &out); err != nil {
		e.t.Fatalf("fabrictest: list faults: %v", err)
	}
	return out.Value
}

// RemoveFault ends rule id; it fails the test unless the rule was active.
func (e *Env) RemoveFault(id string) {
	e.t.Helper()
	if _, err := e.do(http.MethodDelete, "/_emulator/faults/"+url.PathEscape(id), nil, nil, 0, nil); err != nil {
		e.t.Fatalf("fabrictest: remove fault %s: %v", id, err)
	}
}

// ClearFaults ends every fault rule.
func (e *Env) ClearFaults() {
	e.t.Helper()
	if _, err := e.do(http.MethodDelete, "/_emulator/faults", nil, nil, 0, nil); err != nil {
		e.t.Fatalf("fabrictest: clear faults: %v", err)
	}
}

// RESTThrottle answers the next count calls of route (a pattern such as
// "POST /v1/workspaces/{ws}/items", or a path pattern) with Fabric's 429
// RequestBlocked and Retry-After.
func RESTThrottle(route string, retryAfter time.Duration, count int) FaultRule {
	return FaultRule{Target: wire.FaultTarget{Door: wire.FaultDoorREST, Route: route},
		Effect: wire.FaultEffect{Kind: wire.FaultThrottle, RetryAfterSeconds: int(retryAfter / time.Second)}, Count: count}
}

// KafkaError answers the next count Produce (or Fetch) requests on the
// custom endpoint's Kafka door with the Kafka error named code
// (NOT_ENOUGH_REPLICAS, REQUEST_TIMED_OUT, …), writing nothing.
func KafkaError(operation, code string, count int) FaultRule {
	return FaultRule{Target: wire.FaultTarget{Door: wire.FaultDoorKafka, Operation: operation},
		Effect: wire.FaultEffect{Kind: wire.FaultError, KafkaError: code}, Count: count}
}

// KafkaThrottle gives the next count Produce (or Fetch) answers of the
// Kafka door a throttle time of d, and holds the connection's next
// request as long, as a broker enforcing a quota does.
func KafkaThrottle(operation string, d time.Duration, count int) FaultRule {
	return FaultRule{Target: wire.FaultTarget{Door: wire.FaultDoorKafka, Operation: operation},
		Effect: wire.FaultEffect{Kind: wire.FaultThrottle, ThrottleMs: int(d / time.Millisecond)}, Count: count}
}

// EventHubsServerBusy refuses the next count sends on the Event Hubs door
// with com.microsoft:server-busy (ServerBusyException).
func EventHubsServerBusy(count int) FaultRule {
	return FaultRule{Target: wire.FaultTarget{Door: wire.FaultDoorEventHubs, Operation: wire.FaultProduce},
		Effect: wire.FaultEffect{Kind: wire.FaultThrottle}, Count: count}
}

// DestinationWriteFailure fails the next count writes of destination
// destinationID; the destination retries them.
func DestinationWriteFailure(destinationID string, count int) FaultRule {
	return FaultRule{Target: wire.FaultTarget{Door: wire.FaultDoorDestination, Destination: destinationID},
		Effect: wire.FaultEffect{Kind: wire.FaultWriteFailure}, Count: count}
}

// BrokerUnreachable makes the broker behind the emulator unreachable to
// the doors' writes for d.
func BrokerUnreachable(d time.Duration) FaultRule {
	return FaultRule{Target: wire.FaultTarget{Door: wire.FaultDoorBroker}, Effect: wire.FaultEffect{Kind: wire.FaultUnreachable},
		DurationSeconds: d.Seconds()}
}
