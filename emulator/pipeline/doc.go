// Package pipeline runs Eventstream operators — Filter, ManageFields,
// GroupBy over tumbling, hopping, sliding, session or snapshot windows,
// Aggregate (rolling aggregates per event), Expand, Union and Join — over
// rows (see package rows).
// It is pure: no HTTP, no Kafka. The /operators routes call Parse; each
// destination's drain feeds the records it reads to a Pipeline and writes
// what comes out.
//
// # JSON shapes
//
// Parse accepts an array of operators (or {"operators": [...]}, or one
// operator object). One example each:
//
//	{"type": "Filter", "condition": {"field": "temp", "op": "gt", "value": 20}}
//	{"type": "Filter", "condition": {"and": [
//	    {"field": "site", "op": "eq", "value": "oslo"},
//	    {"or": [{"field": "temp", "op": "gte", "value": 30},
//	            {"not": {"field": "alarm", "op": "exists"}}]}]}}
//	{"type": "ManageFields", "keep": ["id", "temp", "ts", "device.id"],
//	    "drop": ["debug"], "rename": {"device.id": "device"},
//	    "cast": {"temp": "double", "ts": "timestamp"}}
//	{"type": "ManageFields", "keep": ["id"], "compute": [{"fn": "charindex",
//	    "args": [{"literal": "aaa"}, {"field": "deviceId"}, {"literal": 1}],
//	    "as": "n"}]}
//	{"type": "GroupBy", "keys": ["device"],
//	    "aggregates": [{"fn": "count", "as": "n"}, {"fn": "avg", "field": "temp"}],
//	    "window": {"kind": "hopping", "duration": "10m", "hop": "5m",
//	               "on": "ts", "allowedLateness": "30s"}}
//	{"type": "GroupBy", "keys": ["src"], "aggregates": [{"fn": "sum", "field": "v", "as": "total"}],
//	    "kind": "tumbling", "duration": "1m", "on": "ts"}          (the seed's flat window)
//	[{"type": "Window", "kind": "tumbling", "duration": "1m", "on": "ts"},
//	 {"type": "GroupBy", "keys": ["_window_start", "src"],
//	  "aggregates": [{"fn": "count", "as": "n"}]}]              (the seed's pair: one windowed GroupBy)
//	{"type": "Aggregate", "on": "ts", "allowedLateness": "5s",
//	    "aggregates": [{"fn": "avg", "field": "temp", "partitionBy": ["device"],
//	                    "duration": "5m", "as": "avg5m"}]}      (rolling: every row, plus avg5m)
//	{"type": "GroupBy", "keys": ["k"], "aggregates": [{"fn": "count", "as": "n"}],
//	    "window": {"kind": "sliding", "duration": "10s"}}
//	{"type": "GroupBy", "keys": ["k"], "aggregates": [{"fn": "count", "as": "n"}],
//	    "window": {"kind": "session", "timeout": "5m", "maxDuration": "1h", "partitionBy": "device"}}
//	{"type": "GroupBy", "aggregates": [{"fn": "count", "as": "n"}], "window": {"kind": "snapshot"}}
//	{"type": "Expand", "fields": ["tags"], "ignoreMissingOrEmpty": true}
//	{"type": "Union", "inputs": [[{"type": "Filter", ...}], [{"type": "Filter", ...}]]}
//	{"type": "Join", "joinType": "LeftOuter", "joinOn": [{"left": "id", "right": "id"}],
//	    "duration": "1m", "inputs": [[...left chain...], [...right chain...]]}
//
// The SQL operator, percentile/deviation/variance functions and calendar
// duration units are refused by name with a *NotSupportedError; anything
// malformed is a *ValidationError. Both name the field at fault
// ("operators[1].aggregates[0].fn") and both are answered with 400.
//
// # Field names
//
// A field name that is a top-level key of the row reaches that field, even
// when it contains dots. Otherwise a dotted name walks nested objects:
// "device.id" is row["device"]["id"]. Arrays are not indexed. The same rule
// holds for Filter fields, ManageFields names, GroupBy keys and aggregate
// fields, Aggregate partitionBy fields and a window's or an Aggregate's "on"
// field. GroupBy output fields are named by the
// key as written ("device.id" becomes a top-level "device.id").
//
// # Filter
//
// See Op for the comparison rules: numbers against numbers (numerically),
// strings against strings (byte order, or as instants when both are RFC 3339
// timestamps), booleans by eq/ne only; a type mismatch fails the comparison,
// ne included; missing and null are the same and fail everything but exists,
// eq null and ne null. Conditions never fail at run time.
//
// # ManageFields
//
// keep, drop, cast, rename apply in that order to the input field names.
// A value a cast cannot convert becomes null and is counted
// (Stats.CastFailures); rows are never dropped. See FieldType for the
// conversions and ManageFields for the Fabric mapping. compute adds fields
// computed from the input row by Azure Stream Analytics' string and
// mathematical functions (see ScalarFunc): null in, null out; a value of the
// wrong type gives null and is counted (Stats.FunctionFailures), and so
// does a string result larger than one event may be (rows.MaxEventBytes),
// refused before it is built.
//
// # Windows and time
//
// A window is [start, start+duration) with starts at offset + k·step from
// the Unix epoch (step = hop for hopping windows, duration for tumbling);
// a row counts in every window covering its time. The time is the field
// named by "on" — an RFC 3339 string (any offset, fractions allowed) or a
// number of milliseconds since the epoch (1700–2200) — or, without "on",
// the Kafka record timestamp (arrival time). A row with no usable time is
// dropped by GroupBy and counted in Stats.MissingTime.
//
// A window is emitted exactly once, when it closes: when the watermark — the
// smallest, over the partitions seen, of the largest time seen on that
// partition, minus allowedLateness — reaches its end, or when Advance's wall
// clock does. For the wall clock each partition is assumed to run at
// wall-clock speed since its last record: its clock reads maxEvent +
// (now − maxRecordTimestamp). On arrival time that is now itself, so a
// window closes once now − allowedLateness passes its end; on event time that
// tracks record time it is the same, and a replay of old data is closed only
// after it has been idle for the window's remaining length plus lateness,
// not the moment it arrives. A row for a window already emitted is late: it
// is dropped from that window (it still counts in any overlapping window
// still open) and counted once in Stats.Late.
//
// Closing is decided after every record, so the output — rows and their
// order — depends only on the sequence of records fed (and on the Advance
// calls), not on how the records were split into Process calls. Windows
// closing together come out ordered by start, then by key. Because the
// watermark is a minimum over partitions, when the topic's partitions are
// declared up front (ExpectPartitions) and each is in time order (within
// allowedLateness), no record is late however the partitions are
// interleaved, and the set of rows is the same for every interleaving. Output rows carry window_start, window_end
// and _window_start (the seed's name), RFC 3339 UTC strings; the key fields;
// one field per aggregate (see AggFunc for types and null rules).
//
// # Sliding, session and snapshot windows
//
// They follow Azure Stream Analytics' SlidingWindow, SessionWindow and
// SnapshotWindow, on the same time axis, horizon and lateness as the
// tumbling and hopping windows above; rows carry window_start and
// window_end as they do.
//
// A sliding window of duration d emits, per group, at every instant T at
// which an event of the group enters the window (T is the event's time) or
// leaves it (T is its time + d): one row over the group's events in
// (T − d, T], window_start T − d and window_end T, when there is any such
// event (an instant at which the window becomes empty gives no row). Rows
// of one instant come out together, ordered by key, once the horizon has
// passed T; an event whose time is before the horizon is late.
//
// A session window is kept per value of its partitionBy field (one for the
// whole stream without it). A session starts with an event and takes each
// next event earlier than its last event + timeout and earlier than its
// cut: Stream Analytics checks a session's length at every multiple of
// maxDuration from the epoch, so the cut is the first such multiple at
// least maxDuration after the session's start. The session ends at the
// earlier of last event + timeout and the cut (window_end), and the next
// event starts a new session (window_start is its time: Microsoft's
// documents are silent on where a session cut at maxDuration resumes). A
// session is emitted when the horizon reaches its end, one row per group
// of its events. An event before the horizon is late unless its partition
// value has an open session that started at or before it.
//
// A snapshot window groups the events with the same time: window_start and
// window_end are that instant, and the window is emitted once the horizon
// has passed it.
//
// # Expand, Union and Join
//
// Expand gives one row per element of an array field (see Expand). Union
// and Join read two or more inputs, each a chain of operators applied to
// the pipeline's input: an Eventstream's operators all read, through the
// nodes before them, its one DefaultStream, so any graph of operators is a
// pipeline whose Unions and Joins hold the chains before their inputs. See
// Union for the order of its rows and Join for the temporal join's rules
// (pairs within a duration, on equal fields; LeftOuter passes on unmatched
// left rows once the horizon passes their time + duration).
//
// # Aggregate
//
// Fabric's Aggregate passes every row on at once with one field added per
// aggregate: the aggregate over the rows of the same partitionBy values
// whose time lies in (t − duration, t], t the row's time (On, or arrival
// time), the row included. Rows late by more than allowedLateness are taken
// at the horizon instead. See RollingAggregate for the rules and the sources
// they follow.
//
// # Restart protocol
//
// Snapshot encodes everything the pipeline holds (open windows, the rows an
// Aggregate still counts, the events a sliding or session window and a
// Join hold, the state of every Union's and Join's inputs), including Offsets(): for
// each partition the offset after the last record fed. Process skips records
// below those offsets (Stats.Replayed), so feeding from an earlier offset is
// harmless. Windows can close on the wall clock, which a replay does not
// repeat, so the rows a batch produced must be stored with the state they
// came from, before they are delivered. Per destination, the drain keeps one
// durable record {snapshot, pending rows, seq}:
//
//	out := p.Process(batch)                   // batch read from Kafka
//	out = append(out, p.Advance(time.Now())...)
//	snap, _ := p.Snapshot()
//	seq++
//	store.Put(dest, record{snap, out, seq})   // one atomic write: state + rows it owes
//	deliver(out, seq)                         // idempotent per seq: Delta txn{appId: dest, version: seq}
//	commit Kafka offsets p.Offsets()          // advisory; the snapshot is authoritative
//
// On restart:
//
//	rec := store.Get(dest)
//	p, _ := pipeline.New(ops); p.Restore(rec.snap)
//	deliver(rec.out, rec.seq)                 // a no-op if it landed before the crash
//	resume reading each partition at p.Offsets()[partition] (others: committed offset)
//
// A crash before Put loses nothing: nothing of that batch was delivered, and
// the restored pipeline reads it again from the stored offsets. A crash
// after Put re-delivers the stored rows under the same seq, which the
// destination skips if they had landed. So a restart
// neither loses nor duplicates a window. When nothing was emitted, storing
// the snapshot alone (with empty rows) is enough. Restore refuses a snapshot
// of other operators (ErrSnapshotMismatch): changing a destination's
// operators starts its windows afresh.
//
// # Fabric's eventstream.json
//
// Filter, ManageFields, GroupBy and RollingAggregate document how Fabric's
// operator properties map onto them; Parse already accepts Fabric's names for
// ops, functions, cast types and duration units, so an importer only
// reshapes. Fabric's SQL operator has no counterpart and is refused.
package pipeline
