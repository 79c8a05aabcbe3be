// Package eventhouse ingests event rows into Kusto tables (a Fabric
// Eventhouse's KQL database, kustainer, or the kustofake stand-in) through the
// official Go SDK, github.com/Azure/azure-kusto-go/azkustodata, using only the
// engine's management endpoint: the path kustainer supports, with no
// data-management ("ingest-") service.
//
//	c, err := eventhouse.New("http://127.0.0.1:8080")
//	err = c.Ingest(ctx, "telemetry", "Events", batch, "dest-42:0:100-199")
//
// # What Ingest sends
//
// For each call, in order:
//
//	.create-merge table ['T'] (['c1']:type, ['c2']:type, …)
//	.show table ['T'] schema as json
//	.ingest inline into table ['T'] with (tags='["ingest-by:<tag>"]', ingestIfNotExists='["<tag>"]') <|
//	<RFC 4180 CSV, one record per row, fields in the table's actual column order>
//
// Every table and column name is quoted, always (QuoteName: ['name'], with
// \ and ' escaped), so a field or table called kind — a name real Kusto
// refuses bare with SYN0002 — needs no special case. The CSV follows the
// column order read back from the engine, so columns added by a later batch,
// or by anyone else, never shift values; a column the row lacks, and a null,
// is an empty field.
//
// # Idempotency
//
// The tag names the batch. The engine adds nothing for an ingest whose
// ingestIfNotExists tag was already ingested into the table, so calling
// Ingest again with the same rows (in the same order) and the same tag after
// any failure — before the engine saw the command, or after it committed and
// the answer was lost — leaves exactly one copy. A batch larger than
// WithMaxCommandBytes (default 4 MiB of CSV) is split into several commands;
// then part i (counting from 0) carries the tag "<tag>#<i>". The split depends only on the
// rows and that limit, so a retry splits the same way and parts that landed
// before a failure are skipped.
//
// # Column names
//
// Kusto names are 1–1024 letters, digits, '_', ' ', '.' or '-', and may not
// start or end with "__". ColumnName maps a field name to one: every other
// character becomes '_' (so "@timestamp" lands in "_timestamp" and "user:id"
// in "user_id"), an empty name becomes "f", a leading or trailing "__" gets an
// "f" before or after it, and names are cut to 1024 characters. Valid names,
// keywords like kind included, are kept as they are. When two fields of one
// row map to the same column, the field already named like the column wins,
// otherwise the first in sorted order; the other is reported to the conflict
// handler and not written. Table names are not mapped: ValidateName refuses an
// invalid one before anything is sent.
//
// # Type mapping
//
// A new column takes its type from the batch's non-null values:
//
//	json.Number that is an integer fitting int64, Go integers   → long
//	any other json.Number, float32/float64                      → real
//	bool                                                        → bool
//	string (RFC 3339 text included)                             → string
//	time.Time                                                   → datetime
//	map[string]any, []any and anything else                     → dynamic
//	only nulls in this batch                                    → string
//
// Values of one field with mixed kinds in one batch: long and real make real;
// any other mix makes dynamic. Strings that look like timestamps stay strings:
// a field that is a timestamp in one event and free text in the next would
// otherwise lose values, and KQL's todatetime() converts at query time.
//
// # Values and conflicts with existing columns
//
// An existing column keeps its type; create-merge never changes it. Each value
// is written in the column's type when that is lossless:
//
//	string    any value, as text (numbers as written, objects as JSON)
//	long, int integers in range (3.0 too)
//	real      any number
//	decimal   any number, or a string holding a decimal number
//	bool      bool
//	datetime  time.Time, or a string in RFC 3339
//	guid      a string holding a GUID
//	timespan  time.Duration, or a string [-][d.]hh:mm:ss[.fffffff]
//	dynamic   any value, as JSON (a string becomes a JSON string)
//
// Any other value is a conflict: the field is left empty (null), exactly what
// Kusto itself does with a CSV field that does not parse as its column's type,
// and the conflict is reported to the handler set with WithConflictHandler.
// The batch is not failed — a value that can never fit would otherwise block
// the stream for good — and the original event stays in Kafka. NaN and ±Inf
// are written as null. Kusto strings are never null: a null, or a missing
// field, reads back from a string column as "".
//
// # Keeping an existing table's columns
//
// Under KeepSchema (the emulator's DirectIngestion destinations, where the
// Eventhouse itself ingests through its ingestion mapping) a table that
// already exists is not altered: each field goes to the column of its
// name, a field the table has no column for is not written and is
// reported to the conflict handlers with an empty ColumnType, and a row
// that shares no column with the table lands as a row of nulls, as Kusto's
// own mapping does. A table that does not exist is created from the batch
// as above. WithConflicts gives one call its own conflict handler, so a
// client shared by several destinations can tell each its conflicts.
//
// # Errors
//
// Invalid arguments (an empty tag or database, an invalid table name) are
// refused before anything is sent. Any other failure is an *EngineError
// (errors.As), which names the step, the table and the database and carries the engine's own message (the OneApiError @message, such
// as "Syntax error: SYN0002: …") or the transport error ("connection
// refused"), without the command text; the SDK's error stays reachable through
// errors.As. Retryable reports whether the engine marked the failure as
// transient.
package eventhouse
