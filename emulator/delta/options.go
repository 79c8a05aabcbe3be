package delta

import (
	"slices"
	"time"

	"github.com/fabrictest/fabrictest/emulator/rows"
)

// Option configures a Table opened by Open.
type Option func(*options)

type options struct {
	engineInfo   string
	queryID      string // non-empty: commits are STREAMING UPDATE
	maxAttempts  int
	rowGroupRows int64
	fsync        bool
	now          func() time.Time
	mode         SchemaMode
}

func defaultOptions() options {
	return options{
		engineInfo:   "fabrictest",
		maxAttempts:  100,
		rowGroupRows: 128 * 1024,
		fsync:        true,
		now:          time.Now,
	}
}

// WithEngineInfo sets the commitInfo.engineInfo of every commit
// (default "fabrictest").
func WithEngineInfo(engine string) Option {
	return func(o *options) { o.engineInfo = engine }
}

// WithStreamingUpdate makes every commit a "STREAMING UPDATE", as Spark's
// Delta sink writes them, with operationParameters outputMode "Append",
// queryId queryID and epochId the version of the commit's first Txn (the
// commit's own version when it has none). Without this option commits are
// "WRITE" with mode "Append".
func WithStreamingUpdate(queryID string) Option {
	return func(o *options) { o.queryID = queryID }
}

// WithMaxCommitAttempts bounds how many times Append tries to commit when
// other writers keep taking the next version (default 100).
func WithMaxCommitAttempts(n int) Option {
	return func(o *options) {
		if n > 0 {
			o.maxAttempts = n
		}
	}
}

// WithRowGroupRows bounds the rows of one Parquet row group, and so the
// memory a large batch takes while its data file is written
// (default 131072).
func WithRowGroupRows(n int64) Option {
	return func(o *options) {
		if n > 0 {
			o.rowGroupRows = n
		}
	}
}

// WithoutFsync skips the fsync of data files, commit files and the log
// directory: faster, but a machine crash may lose or truncate recent
// commits. Meant for throwaway tables in tests.
func WithoutFsync() Option {
	return func(o *options) { o.fsync = false }
}

// WithClock sets the clock behind commit timestamps, createdTime,
// modificationTime and txn lastUpdated (default time.Now).
func WithClock(now func() time.Time) Option {
	return func(o *options) {
		if now != nil {
			o.now = now
		}
	}
}

// SchemaMode is how Append treats a row whose fields or types differ from
// the table's schema (see the package documentation).
type SchemaMode uint8

const (
	// SchemaEvolve, the default, infers a new table's schema from its
	// whole first batch and adds a column for every new field; a value
	// its column cannot hold fails the batch with a *SchemaConflictError.
	SchemaEvolve SchemaMode = iota
	// SchemaEnforce is the schema enforcement of Fabric's Lakehouse
	// destination: a new table takes its schema from its first record,
	// every row is projected onto the table's schema (fields the table
	// lacks are dropped and reported, missing ones are null), and a row
	// that cannot be projected fails the batch with a *RowsError listing
	// every such row.
	SchemaEnforce
)

// String names the mode ("evolve", "enforce").
func (m SchemaMode) String() string {
	if m == SchemaEnforce {
		return "enforce"
	}
	return "evolve"
}

// WithSchemaMode sets how appends treat rows that differ from the
// table's schema (default SchemaEvolve: this package is a general Delta
// writer, and evolution is what it did first; the emulator's Lakehouse
// destination asks for SchemaEnforce, Fabric's behaviour).
func WithSchemaMode(m SchemaMode) Option {
	return func(o *options) { o.mode = m }
}

// AppendOption configures one AppendReport call.
type AppendOption func(*appendOptions)

type appendOptions struct {
	txns   []Txn
	order  func(row int) *FieldOrder
	values [][]byte
}

// WithTxn records txns with the commit, as Append's txns argument does.
// Repeated, it adds to the txns of the earlier ones.
func WithTxn(txns ...Txn) AppendOption {
	return func(o *appendOptions) { o.txns = append(o.txns, txns...) }
}

// WithFieldOrder tells the append the order in which the producer wrote
// each row's members (order(i) for row i of the batch; nil when it is not
// known), which a row, a Go map, does not keep. A new table's columns,
// and the members of its struct columns, follow the order of the record
// that makes its schema (under SchemaEvolve, of the batch's first row):
// the members it names come first, in its order, the others after them
// in name order. Only that one row's order is asked for, so order may
// compute it on demand. An existing table's columns never move.
func WithFieldOrder(order func(row int) *FieldOrder) AppendOption {
	return func(o *appendOptions) { o.order = order }
}

// WithValues gives the append the record value each row of the batch was
// decoded from by rows.FromValue (values[i] for row i). Under
// SchemaEnforce, a table that exists takes a record that rows.ScanFlat
// reads straight to its Parquet values, with no Row in between; the rows
// are the same either way. A row of the batch may be nil where its value
// is given (not nil): it is decoded only when needed.
func WithValues(values [][]byte) AppendOption {
	return func(o *appendOptions) { o.values = values }
}

// rowsOf is batch with every nil row decoded from its value.
func (o *appendOptions) rowsOf(batch []rows.Row) []rows.Row {
	var out []rows.Row
	for i, r := range batch {
		if r != nil || o.values == nil || o.values[i] == nil {
			continue
		}
		if out == nil {
			out = slices.Clone(batch)
		}
		out[i] = rows.FromValue(o.values[i])
	}
	if out == nil {
		return batch
	}
	return out
}

// orderOf is row i's field order, nil without WithFieldOrder.
func (o *appendOptions) orderOf(i int) *FieldOrder {
	if o.order == nil {
		return nil
	}
	return o.order(i)
}
