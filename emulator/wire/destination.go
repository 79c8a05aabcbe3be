package wire

// Destination is a native destination binding (POST and GET
// …/eventstreams/{id}/destinations): an Eventstream's binding to a
// Lakehouse table, an Eventhouse table or a Reflex.
type Destination struct {
	// ID is the destination id.
	ID string `json:"id"`
	// Type is Lakehouse, Eventhouse or Reflex.
	Type string `json:"type"`
	// WorkspaceID and ItemID name the target item.
	WorkspaceID string `json:"workspaceId"`
	ItemID      string `json:"itemId"`
	// Table is the target table (none for a Reflex).
	Table string `json:"table,omitempty"`
	// Database is the KQL database of an Eventhouse destination.
	Database string `json:"database,omitempty"`
	// Status is Running, Failed (Delivery.LastError says why), Warning
	// (Delivery.LastKafkaError says why) or Inactive (no broker).
	Status string `json:"status"`
	// Delivery counts what the destination did (absent before it runs).
	Delivery *Delivery `json:"delivery,omitempty"`
	// IngestionMode is an Eventhouse destination's dataIngestionMode.
	IngestionMode string `json:"ingestionMode,omitempty"`
	// ErrorPolicy, DeadLetterTopic and SchemaMode are the emulator's
	// delivery settings (absent when left at their defaults).
	ErrorPolicy     string `json:"errorPolicy,omitempty"`
	DeadLetterTopic string `json:"deadLetterTopic,omitempty"`
	SchemaMode      string `json:"schemaMode,omitempty"`
	// Batching is a Lakehouse destination's batching (absent: it commits
	// at once).
	Batching *Batching `json:"batching,omitempty"`
}

// Batching is when a Lakehouse destination commits a file: after
// MinimumRows rows or MaximumDurationInSeconds, whichever comes first.
type Batching struct {
	MinimumRows              int64 `json:"minimumRows"`
	MaximumDurationInSeconds int64 `json:"maximumDurationInSeconds"`
}

// Delivery is what a destination reports about its work.
type Delivery struct {
	// Delivered counts the rows written.
	Delivered int64 `json:"delivered"`
	// FailedAttempts counts the writes that failed (and were retried).
	FailedAttempts int64 `json:"failedAttempts"`
	// RecoveredPanics and SkippedRecords count the records a sink panicked
	// on and the ones the error policy skipped; both are absent while both
	// are 0.
	RecoveredPanics *int64 `json:"recoveredPanics,omitempty"`
	SkippedRecords  *int64 `json:"skippedRecords,omitempty"`
	// LastKafkaError is why the Kafka cluster cannot serve the topic, when
	// Status is Warning; delivery resumes once it can.
	LastKafkaError string `json:"lastKafkaError,omitempty"`
	// LastError is the last failure, when Status is Failed.
	LastError string `json:"lastError,omitempty"`
	// Stopped is true when the fail policy stopped the destination; resume
	// starts it again.
	Stopped bool `json:"stopped,omitempty"`
	// BufferedRows counts the rows a batching Lakehouse destination holds,
	// not yet committed, the first of them since BufferedSince (RFC 3339).
	BufferedRows  *int64 `json:"bufferedRows,omitempty"`
	BufferedSince string `json:"bufferedSince,omitempty"`
	// RejectedRows counts rows a Lakehouse table could not hold (parked
	// under Files/_rejected); LastRejection says why the last one was.
	RejectedRows  int64  `json:"rejectedRows,omitempty"`
	LastRejection string `json:"lastRejection,omitempty"`
}
