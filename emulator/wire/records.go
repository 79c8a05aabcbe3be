package wire

import "time"

// ConsumeAnswer is the consume route's answer (GET
// /v1/eventstreams/{id}/sources/{ds}/events): the records read, in
// partition then offset order, and where a next read starts.
type ConsumeAnswer struct {
	// Complete is true when every partition reached its ending offset,
	// false when maxRecords or timeoutMs ended the read first.
	Complete bool `json:"complete"`
	// Count is the number of records in Value.
	Count int `json:"count"`
	// NextOffsets maps topic, then partition (as text), to the offset after
	// the last record read: the startingOffsets of the next page.
	NextOffsets map[string]map[string]int64 `json:"nextOffsets"`
	// Value holds the records read.
	Value []Record `json:"value"`
}

// Record is one Kafka record as the consume route writes it, with the
// columns Spark's Kafka source gives it. Key, value and header values are
// base64 (null stays null), the timestamp RFC 3339 in milliseconds.
type Record struct {
	// Key is the record key; nil when the record has none.
	Key []byte `json:"key"`
	// Value is the record value; nil for a Kafka null (a tombstone).
	Value []byte `json:"value"`
	// Topic is the Kafka topic, {itemId}.{datasourceId} for an Eventstream.
	Topic string `json:"topic"`
	// Partition is the partition the record is in.
	Partition int32 `json:"partition"`
	// Offset is the record's offset in its partition.
	Offset int64 `json:"offset"`
	// Timestamp is the record timestamp (millisecond precision).
	Timestamp time.Time `json:"timestamp"`
	// TimestampType is 0 for CreateTime and 1 for LogAppendTime.
	TimestampType int `json:"timestampType"`
	// Headers are the record headers, in order.
	Headers []Header `json:"headers"`
}

// Header is one Kafka record header. A nil Value is a null header value.
type Header struct {
	// Key is the header name; names may repeat.
	Key string `json:"key"`
	// Value is the header value.
	Value []byte `json:"value"`
}
