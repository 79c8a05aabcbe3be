package eventstream

import (
	"encoding/json"
	"fmt"

	"github.com/fabrictest/fabrictest/emulator/internal/definition"
	"github.com/fabrictest/fabrictest/emulator/internal/store"
)

// Spec is what a destination binding stores beside its table: an
// Eventhouse's database; for a destination deployed by a definition, its
// node name and, when the definition's destinations read through different
// operators, its own operator chain (OwnOperators: Operators replaces the
// Eventstream's chain, even when empty).
//
// The delivery settings (issue 15) are stored here too: Batching for a
// Lakehouse destination, the schema mode, the error policy with its
// dead-letter topic, and an Eventhouse destination's ingestion mode.
type Spec struct {
	Database     string          `json:"database,omitempty"`
	Name         string          `json:"name,omitempty"`
	OwnOperators bool            `json:"ownOperators,omitempty"`
	Operators    json.RawMessage `json:"operators,omitempty"`

	// Batching is when a Lakehouse destination commits; nil commits
	// every batch at once (a native binding that sets neither setting).
	Batching *Batching `json:"batching,omitempty"`
	// SchemaMode is SchemaEnforce (Fabric's, and "" means it) or
	// SchemaEvolve (an emulator extension).
	SchemaMode string `json:"schemaMode,omitempty"`
	// ErrorPolicy is what happens to a record the destination cannot
	// write: PolicyDrop (Fabric's, and "" means it), PolicyRetry,
	// PolicyDLQ or PolicyFail.
	ErrorPolicy string `json:"errorPolicy,omitempty"`
	// DeadLetterTopic is the Kafka topic PolicyDLQ writes to ("" means
	// DeadLetterTopic(eventstream, destination)).
	DeadLetterTopic string `json:"deadLetterTopic,omitempty"`
	// IngestionMode is an Eventhouse destination's dataIngestionMode:
	// "ProcessedIngestion" ("" means it) or "DirectIngestion".
	IngestionMode string `json:"ingestionMode,omitempty"`
	// Serialization is how the destination reads its events (its node's
	// inputSerialization, or its sources'); nil reads Json.
	Serialization *definition.Serialization `json:"serialization,omitempty"`
	// Schemas are the Avro schemas registered for the Eventstream's
	// sources in schema mode: events that conform to none are dropped.
	Schemas []string `json:"schemas,omitempty"`
}

// Batching is a Lakehouse destination's minimumRows and
// maximumDurationInSeconds: a file is committed when either is reached.
type Batching struct {
	MinimumRows              int64 `json:"minimumRows"`
	MaximumDurationInSeconds int64 `json:"maximumDurationInSeconds"`
}

// Fabric's defaults and ranges for Batching (fabric-rest-api-specs
// eventstream/definitions/destination.json; fabric-docs
// add-destination-lakehouse.md).
const (
	DefaultMinimumRows              = 100_000
	DefaultMaximumDurationInSeconds = 120
	MinMinimumRows, MaxMinimumRows  = 1, 2_000_000
	MinMaximumDuration              = 60
	MaxMaximumDuration              = 7_200
)

// Schema modes of a Lakehouse destination.
const (
	SchemaEnforce = "enforce"
	SchemaEvolve  = "evolve"
)

// Error policies of a destination.
const (
	PolicyDrop  = "drop"
	PolicyRetry = "retry"
	PolicyDLQ   = "dlq"
	PolicyFail  = "fail"
)

// SpecOf decodes d's spec (the zero Spec when it has none).
func SpecOf(d store.Destination) (Spec, error) {
	var s Spec
	if len(d.Spec) == 0 {
		return s, nil
	}
	if err := json.Unmarshal(d.Spec, &s); err != nil {
		return s, fmt.Errorf("decode destination %s: %w", d.ID, err)
	}
	return s, nil
}

// Encode is s as stored.
func (s Spec) Encode() json.RawMessage {
	b, _ := json.Marshal(s) // a struct of strings, a bool and raw JSON always marshals
	return b
}
