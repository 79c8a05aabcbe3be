package cdc

import (
	"encoding/json"
	"time"
)

// Debezium's operation codes.
const (
	OpRead   = "r" // a snapshot row
	OpCreate = "c"
	OpUpdate = "u"
	OpDelete = "d"
)

// DebeziumVersion is what source.version says: the Debezium release line
// whose event shape the emulator writes.
const DebeziumVersion = "2.7.0.Final"

// Row is a row image: column name to JSON value, in column order.
type Row struct {
	Names  []string
	Values []any
}

// MarshalJSON writes the row as an object in column order.
func (r *Row) MarshalJSON() ([]byte, error) {
	if r == nil {
		return []byte("null"), nil
	}
	buf := []byte{'{'}
	for i, n := range r.Names {
		if i > 0 {
			buf = append(buf, ',')
		}
		k, _ := json.Marshal(n)
		v, err := json.Marshal(r.Values[i])
		if err != nil {
			return nil, err
		}
		buf = append(append(append(buf, k...), ':'), v...)
	}
	return append(buf, '}'), nil
}

// Envelope is Debezium's change event value (its payload, as Fabric's
// pages show it, without the Kafka Connect schema beside it).
type Envelope struct {
	Before      *Row   `json:"before"`
	After       *Row   `json:"after"`
	Source      any    `json:"source"`
	Op          string `json:"op"`
	TsMs        int64  `json:"ts_ms"`
	Transaction any    `json:"transaction"`
}

// Event is one change ready for the Eventstream: its key (the primary key
// columns as a JSON object, nil without a key), its value (the envelope)
// and its time (the commit's, or the snapshot's).
type Event struct {
	Key   []byte
	Value []byte
	Time  time.Time
}

// event marshals env into an Event keyed by the key columns of row.
func event(env Envelope, key *Row, at time.Time) (Event, error) {
	v, err := json.Marshal(env)
	if err != nil {
		return Event{}, err
	}
	ev := Event{Value: v, Time: at}
	if key != nil && len(key.Names) > 0 {
		ev.Key, _ = key.MarshalJSON()
	}
	return ev, nil
}

// snapshotFlag is source.snapshot: "true" for a snapshot row, "last" for
// the snapshot's last, "false" for a streamed change.
func snapshotFlag(snapshot, last bool) string {
	switch {
	case snapshot && last:
		return "last"
	case snapshot:
		return "true"
	}
	return "false"
}
