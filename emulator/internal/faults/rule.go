package faults

import (
	"fmt"
	"math"
	"net/http"
	"path"
	"strings"

	"github.com/fabrictest/fabrictest/emulator/wire"
)

// doorEffects lists the effects each door can inject.
var doorEffects = map[string][]string{
	wire.FaultDoorREST:        {wire.FaultThrottle, wire.FaultError, wire.FaultDrop, wire.FaultLatency},
	wire.FaultDoorKafka:       {wire.FaultThrottle, wire.FaultError, wire.FaultDrop, wire.FaultLatency},
	wire.FaultDoorEventHubs:   {wire.FaultThrottle, wire.FaultError, wire.FaultDrop, wire.FaultLatency},
	wire.FaultDoorDestination: {wire.FaultWriteFailure, wire.FaultLatency},
	wire.FaultDoorBroker:      {wire.FaultUnreachable},
}

// streamDoors are the doors a rule without a door reaches when it names an
// Eventstream: those events go in and out by.
var streamDoors = []string{wire.FaultDoorREST, wire.FaultDoorKafka, wire.FaultDoorEventHubs}

// Limits of a rule's fields.
const (
	maxCount      = 1_000_000
	maxDuration   = 24 * 60 * 60 // seconds
	maxRetryAfter = 3600
	maxThrottleMs = 300_000
	maxLatencyMs  = 60_000
)

// ValidationError is a rule's field that is not right; the API answers it
// as InvalidParameter naming Field.
type ValidationError struct {
	Field   string
	Message string
}

func (e *ValidationError) Error() string { return e.Field + ": " + e.Message }

func invalid(field, format string, args ...any) error {
	return &ValidationError{Field: field, Message: fmt.Sprintf(format, args...)}
}

// Validate checks r and fills its effect's defaults.
func Validate(r *wire.FaultRule) error {
	if err := validateTarget(&r.Target); err != nil {
		return err
	}
	if err := validateEffect(r.Target.Door, &r.Effect); err != nil {
		return err
	}
	return validateLimits(r)
}

func validateTarget(t *wire.FaultTarget) error {
	t.Door = strings.ToLower(strings.TrimSpace(t.Door))
	t.Method = strings.ToUpper(strings.TrimSpace(t.Method))
	if _, ok := doorEffects[t.Door]; !ok && t.Door != "" {
		return invalid("target.door", "want rest, kafka, eventhubs, destination or broker, got %q", t.Door)
	}
	if t.Door == "" && t.Eventstream == "" {
		return invalid("target.door", "required unless target.eventstream names an Eventstream")
	}
	if t.Operation != "" && t.Operation != wire.FaultProduce && t.Operation != wire.FaultConsume {
		return invalid("target.operation", "want produce or consume, got %q", t.Operation)
	}
	if (t.Route != "" || t.Method != "") && t.Door != wire.FaultDoorREST {
		return invalid("target.route", "a route or method narrows only a rest rule")
	}
	if _, _, ok := strings.Cut(t.Route, " "); !ok && t.Route != "" {
		if _, err := path.Match(t.Route, "/"); err != nil {
			return invalid("target.route", "bad path pattern %q: %v", t.Route, err)
		}
	}
	if t.Destination != "" && t.Door != wire.FaultDoorDestination {
		return invalid("target.destination", "names a destination of a destination rule only")
	}
	return nil
}

func validateEffect(door string, e *wire.FaultEffect) error {
	allowed := doorEffects[door]
	if door == "" {
		allowed = doorEffects[wire.FaultDoorREST]
	}
	if !contains(allowed, e.Kind) {
		return invalid("effect.kind", "want one of %s for door %q, got %q", strings.Join(allowed, ", "), door, e.Kind)
	}
	switch {
	case e.RetryAfterSeconds < 0 || e.RetryAfterSeconds > maxRetryAfter:
		return invalid("effect.retryAfterSeconds", "want 0 to %d, got %d", maxRetryAfter, e.RetryAfterSeconds)
	case e.ThrottleMs < 0 || e.ThrottleMs > maxThrottleMs:
		return invalid("effect.throttleMs", "want 0 to %d, got %d", maxThrottleMs, e.ThrottleMs)
	case e.LatencyMs < 0 || e.LatencyMs > maxLatencyMs:
		return invalid("effect.latencyMs", "want 0 to %d, got %d", maxLatencyMs, e.LatencyMs)
	case e.Status != 0 && (e.Status < 400 || e.Status > 599):
		return invalid("effect.status", "want an HTTP error status, 400 to 599, got %d", e.Status)
	case e.Kind == wire.FaultLatency && e.LatencyMs == 0:
		return invalid("effect.latencyMs", "required for a latency effect")
	}
	if e.KafkaError != "" {
		if _, ok := KafkaCode(e.KafkaError); !ok {
			return invalid("effect.kafkaError", "no Kafka error code is named %q (e.g. NOT_ENOUGH_REPLICAS, REQUEST_TIMED_OUT)", e.KafkaError)
		}
	}
	fillDefaults(e)
	return nil
}

// fillDefaults sets what an effect left out.
func fillDefaults(e *wire.FaultEffect) {
	if e.RetryAfterSeconds == 0 {
		e.RetryAfterSeconds = 1
	}
	if e.ThrottleMs == 0 && e.Kind == wire.FaultThrottle {
		e.ThrottleMs = 1000
	}
	if e.Status == 0 && e.Kind == wire.FaultError {
		e.Status = http.StatusServiceUnavailable
	}
	if e.KafkaError == "" && e.Kind == wire.FaultError {
		e.KafkaError = "NOT_ENOUGH_REPLICAS"
	}
	if e.AMQPCondition == "" && (e.Kind == wire.FaultError || e.Kind == wire.FaultThrottle) {
		e.AMQPCondition = ServerBusy
	}
}

// ServerBusy is Event Hubs' throttling condition (ServerBusyException).
const ServerBusy = "com.microsoft:server-busy"

func validateLimits(r *wire.FaultRule) error {
	switch {
	case r.Count < 0 || r.Count > maxCount:
		return invalid("count", "want 0 to %d, got %d", maxCount, r.Count)
	case r.DurationSeconds < 0 || r.DurationSeconds > maxDuration || math.IsNaN(r.DurationSeconds):
		return invalid("durationSeconds", "want 0 to %d, got %v", maxDuration, r.DurationSeconds)
	case r.Probability < 0 || r.Probability > 1 || math.IsNaN(r.Probability):
		return invalid("probability", "want 0 to 1, got %v", r.Probability)
	case len(r.ID) > 128:
		return invalid("id", "at most 128 characters")
	}
	return nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
