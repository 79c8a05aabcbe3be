// Package faults holds the fault rules a test injects into the emulator
// (POST /_emulator/faults, emulator.WithFaults): each names a target (a
// door, a REST route, an Eventstream's produce or consume, a destination,
// the broker) and an effect (throttle, error, drop, latency, write
// failure, unreachable), and ends by itself after a count or a duration.
//
// A door asks Check with what a call is (its Request); Check answers the
// Hit of the first active rule that matches and whose effect the door can
// inject, or nil. Every hit is counted (Collector, for the Prometheus
// exposition) and told to the Set's OnInject hook, which the emulator uses
// to log it in the node's runtime logs. A rule with a probability draws
// from its own generator seeded with its seed, so a run repeats.
//
// The package decides; each door renders the effect in its own protocol
// (REST: Fabric's 429 RequestBlocked with Retry-After; Kafka: the
// response's throttle time or a named error code; Event Hubs:
// com.microsoft:server-busy or another AMQP condition).
package faults
