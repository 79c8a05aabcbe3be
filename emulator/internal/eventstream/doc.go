// Package eventstream is the typed model of an Eventstream as the emulator
// stores it: its streams and their Kafka topics, the operator chain, the
// stored definition, the paused nodes, its CustomEndpoint nodes, and the
// settings a destination binding keeps beside its table.
//
// The model is decoded from store.Item.Properties (and a destination's
// spec from store.Destination.Spec) here and nowhere else, and decode
// errors are returned. Load and Save read and write it through store.
package eventstream
