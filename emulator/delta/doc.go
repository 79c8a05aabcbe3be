// Package delta appends rows to Delta Lake tables on the local file system:
// Parquet data files written with parquet-go and a _delta_log of JSON
// commits at protocol (minReaderVersion 1, minWriterVersion 2), so that
// Spark, delta-rs and other Delta readers read them exactly. It is the
// writer behind the emulator's Lakehouse destination, and ReadTable is a
// reader for tests and assertions.
//
// # Tables and commits
//
// Open a table by its root directory; the table is created by the first
// Append (version 0: protocol, metaData, the first data file). Each Append
// writes one data file (part-00000-<uuid>-c000.snappy.parquet in the root)
// and one commit file _delta_log/<20-digit version>.json holding commitInfo
// (operation "WRITE", or "STREAMING UPDATE" with WithStreamingUpdate;
// engineInfo "fabrictest"), metaData when the schema changes, one txn action
// per Txn, and the add action with exact statistics. Commits are created
// put-if-absent (a temporary file hard-linked to the commit name), so of two
// writers racing for a version exactly one wins; the other re-reads the log,
// re-checks its txns and schema, and takes the next version. Nothing is ever
// written outside the table's root.
//
// # Checkpoints
//
// Every 10th version (the Delta protocol's default checkpoint interval) the
// writer that committed it also writes a classic single-file checkpoint,
// _delta_log/<version>.checkpoint.parquet, holding the table's state as
// protocol, metaData, txn and add actions (add.stats as the JSON string),
// then _delta_log/_last_checkpoint naming it. Open and ReadState start from
// the checkpoint _last_checkpoint names and read only the later JSON
// commits; Open reads only the checkpoint's first row group (every action
// but the adds), so opening a table costs the same at version 10,000 as at
// 100. Each checkpoint copies the previous one's add row groups verbatim and
// encodes only the adds since (merging trailing row groups no larger than
// them), so writing one stays cheap as files accumulate. A checkpoint that
// cannot be written leaves the commit standing: readers then replay more
// JSON commits.
//
// Txn actions make appends idempotent: an Append whose Txn version is not
// above the version the table records for that app id writes nothing and
// returns ErrTxnCommitted, and TxnVersion tells a restarted writer where to
// resume.
//
// # Rows
//
// Rows are the rows.Row values of package rows: a JSON object's members,
// numbers as json.Number, nested objects as map[string]any, arrays as []any.
// A Kafka record whose value is not a JSON object arrives as a row with a
// single "value" member (its text) or "value_base64" member, and is stored
// like any other row: in a string column "value" (or "value_base64"), unless
// that text itself reads as a timestamp. Rows built in Go may also hold
// string, bool, Go integers and floats, time.Time, rows.Row and []any.
//
// # Schema inference
//
// The type of a field that is not yet a column comes from all of its values
// in the batch (under SchemaEnforce, from the first record's value alone:
// see Schema enforcement). For one value:
//
//   - a string is a string, except one in RFC 3339 form with a time zone
//     ("2024-05-01T10:00:00Z", "2024-05-01T12:00:00.5+02:00"), which is a
//     timestamp: microseconds since the epoch, UTC (digits below the
//     microsecond are truncated; the original offset is not kept);
//   - a number written as an integer that fits int64 is a long; any other
//     number (a fraction, an exponent, an integer beyond int64) is a double;
//     a number beyond the range of a double is a string holding its text;
//   - true and false are boolean;
//   - an object is a struct whose members are inferred the same way; an
//     object that never has a member ({}) is a string holding "{}";
//   - an array is an array whose element type is inferred from all its
//     elements (null elements are allowed); an array that never has a
//     non-null element is array<string>;
//   - a field whose values are all null is a string.
//
// When a field's values disagree, the types merge: long and double give
// double; struct and struct give a struct with the members of both (merged
// the same way); array and array give an array of the merged element type;
// any other pair (timestamp and string included) gives string, where every
// value is stored as text: a string as itself, any other value as its
// compact JSON text (true, 12.5, {"a":1}, [1,"x"]). The same rule applies to
// the elements of an array: [1, "a", true] is array<string> ["1","a","true"].
//
// Every column, struct member and array element is nullable. Existing
// columns keep their order; new columns follow in name order, and new
// struct members follow a struct's existing members in name order. A row
// (a Go map) does not keep the order of its members, so a new table's
// columns come in name order too, unless AppendReport is told the member
// order the producer wrote with WithFieldOrder (JSONFieldOrder reads it
// from a JSON object's text): then a new table's columns, and the members
// of its struct columns, follow the first row's order (under
// SchemaEnforce, the first record's, see below), and the members it does
// not name follow them in name order.
//
// Column names are the member names as they are, Unicode included, except
// that the printable characters Spark rejects in column names (space , ; {
// } ( ) =) become '_'. Delta column
// names are unique case-insensitively, so a member matches the column whose
// name differs only in case ("ID" goes to an existing column "id"); an
// object with two members that map to one column is rejected with a
// *DuplicateFieldError.
//
// # Limits
//
// Every row is checked against package rows' limits before anything is
// written, so that every table can be read by Spark and delta-rs: objects
// and arrays nest at most rows.MaxDepth (32) levels, the row's own object
// counted; a member name is not empty or blank, is valid UTF-8 and has no
// control character (a NUL, a newline, a tab). rows.MaxDepth's
// documentation says why 32. A row that breaks a limit is rejected with a
// *RowLimitError naming the row and the field's path, and nothing is
// written.
//
// # Schema changes and conflicts
//
// This section is the default mode, SchemaEvolve; SchemaEnforce follows
// the next. A Delta table at protocol (1,2) can gain nullable columns, and structs can
// gain nullable members, but no column may change its type. So:
//
//   - a new field becomes a new nullable column (or struct member): the
//     commit carries a metaData action with the whole new schema, and files
//     written before read the new column as null;
//   - a value goes into an existing column when that loses nothing: any
//     value into a string column (as text, above); an integer that fits
//     int64, or a number with a fraction or exponent whose value is such an
//     integer (2.0, 1e3), into a long column; any number into a double
//     column (rounded to the nearest double, as JSON parsers do); a boolean
//     into a boolean column; an RFC 3339 timestamp with a time zone into a
//     timestamp column; an object into a struct column and an array into an
//     array column when their members and elements go in by the same rules;
//     null into any column;
//   - any other value is a conflict: Append returns a *SchemaConflictError
//     naming the field's path ("order.items[].qty"), the column's type and
//     the value's inferred type, and writes nothing (no data file, no
//     commit). The batch stays rejected until the caller changes it.
//
// # Schema enforcement
//
// With WithSchemaMode(SchemaEnforce) a table follows the schema
// enforcement of Fabric's Lakehouse destination (fabric-docs, "Add a
// lakehouse destination to an eventstream"); the emulator's Lakehouse
// destinations use it unless bound with the "evolve" extension:
//
//   - A new table takes its schema from the first record of its first
//     batch, inferred as above from that record alone; the rows after it,
//     in the same batch too, are projected onto that schema. A first
//     record that makes no column ({}) or breaks a limit is rejected (as
//     below), and the next record is first. Its columns, and the members
//     of its objects, come in the record's own order when WithFieldOrder
//     gives it (the emulator's Lakehouse destination does: {"id":1,"a":"x"}
//     makes columns id, a, as the reading of Fabric has it), and in
//     name order otherwise.
//   - Every row is projected onto the table's schema, also a table made
//     by another writer (delta-rs, Spark in a notebook), and the schema
//     never changes. A member that names no column (or no member of a
//     struct column) is not written: AppendReport counts it by field path
//     ("note", "order.extra", "items[].x"), with an example value; a null
//     is not counted, as nothing of it is lost. A column the row lacks is
//     null. Member names match columns as under SchemaEvolve (exactly,
//     else case-insensitively after the '_' replacement); two members for
//     one column are a *DuplicateFieldError.
//   - A row with no member that names a column is a schema conversion
//     failure, and a value its column cannot take without loss is a data
//     conversion error: either way the batch fails with a *RowsError
//     listing every such row (a *ConversionError each, with the row, the
//     field's path, the column's type and the value) before anything is
//     written, so that the caller can set them aside and append the rest.
//
// Microsoft does not document Eventstream's type conversions. Eventstream
// runs the Azure Stream Analytics engine (ASA's query reference applies to
// both, and Eventstream's types are ASA's: BigInt, Float, Nvarchar(max),
// DateTime, Bit, Record, Array), and ASA's "Data types" reference makes a
// conversion without precision loss implicit and always successful, a
// lossy one or an overflow on output an error for the error policy, and a
// loss of precision into float no error. The table below is inferred from
// those rules, not documented for Eventstream:
//
//	column (ASA type)        takes                                  a data conversion error
//	long (BigInt)            an integer in int64's range; a number  a number with a fraction (1.5), an
//	                         with a fraction or exponent whose      integer beyond int64, a string, an
//	                         value is such an integer (2.0, 1e3);   object, an array
//	                         true and false as 1 and 0
//	double (Float)           any number in a double's range (2 is   a number beyond a double's range, a
//	                         2.0; long integers are rounded to the  string, an object, an array
//	                         nearest double); true, false as 1, 0
//	string (Nvarchar(max))   any value: a string as itself, any     none
//	                         other as its compact JSON text (12,
//	                         1.5, true, {"a":1}, [1,"x"])
//	boolean (Bit)            true, false                            a number, a string, an object, an
//	                                                                array
//	timestamp (DateTime)     an RFC 3339 string with a time zone    any other string (a time without a
//	                         (stored as microseconds, UTC)          zone too), a number, a boolean, an
//	                                                                object, an array
//	struct (Record)          an object, each member by this table;  any other value
//	                         members the struct lacks are dropped
//	                         and counted, missing ones are null
//	array (Array)            an array, each element by this table   any other value
//	any column               null                                   none
//
// Where ASA's documents say nothing for this case, these are choices: a
// number whose value is integral goes into a long column because float to
// bigint loses nothing for it (ASA reads 2.0 from JSON as a float); a
// boolean goes into long and double columns because ASA writes Bit into
// bigint columns of SQL outputs and converts Bit to Float as 1.0 and 0.0,
// while a number into a boolean column is an error because Float to Bit
// turns every value but 0 into 1; numbers, booleans and times go into a
// string column because ASA writes BigInt, Float and DateTime into any
// string column of SQL outputs; an object or array in a string column is
// kept as its JSON text, where ASA's SQL output writes the word "Record" or
// "Array", because nothing is lost that way.
//
// # Data files
//
// Every field is an OPTIONAL Parquet field named as its column: string is
// BYTE_ARRAY (STRING), long INT64 (INT(64, signed)), double DOUBLE, boolean
// BOOLEAN, timestamp INT64 TIMESTAMP(isAdjustedToUTC=true, MICROS); a struct
// is an optional group; an array is the standard three-level LIST (optional
// group (LIST) { repeated group list { optional element } }). Files use
// snappy compression and data page v1.
//
// # Statistics
//
// Every add action's stats hold numRecords and, for every field outside an
// array, nullCount (nested like the schema; an array field counts null
// arrays). minValues and maxValues are exact for long and double; for
// strings the minimum is cut to 32 characters (a prefix is still a lower
// bound) and a maximum longer than 32 characters is left out; timestamps
// are in milliseconds, the minimum truncated and the maximum rounded up.
// Booleans, arrays and fields inside arrays get no bounds.
package delta
