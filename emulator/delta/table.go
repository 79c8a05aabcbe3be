package delta

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/fabrictest/fabrictest/emulator/rows"
)

// Txn is a transaction identifier recorded with a commit (a Delta txn
// action): the version an application has written up to, for example the
// last Kafka offset a drain committed, so that a replay can skip it.
type Txn struct {
	AppID   string
	Version int64
}

// Table is a Delta table that rows are appended to. It is safe for
// concurrent use by the goroutines of one process (appends are serialised);
// writers in other processes are kept apart by put-if-absent commits.
type Table struct {
	dir string
	o   options

	mu   sync.Mutex   // serialises Append and refreshes of the log
	stMu sync.RWMutex // guards st
	st   tableState
}

// Open opens the Delta table whose root is dir, or prepares to create it:
// a directory without a log becomes a table at the first Append (version
// 0). Nothing is written by Open. It reads the log from its latest
// checkpoint (see Checkpoints in the package documentation). It fails on a
// log it cannot continue: one without version 0 and without a readable
// checkpoint, or whose protocol needs features beyond reader 1 / writer 2.
func Open(dir string, opts ...Option) (*Table, error) {
	o := defaultOptions()
	for _, opt := range opts {
		opt(&o)
	}
	t := &Table{dir: filepath.Clean(dir), o: o, st: newTableState()}
	if err := t.refresh(); err != nil {
		return nil, fmt.Errorf("open delta table %s: %w", dir, err)
	}
	if t.st.version < 0 {
		versions, checkpoints, err := listLog(t.dir)
		if err != nil {
			return nil, fmt.Errorf("open delta table %s: %w", dir, err)
		}
		if len(versions) > 0 || checkpoints {
			return nil, fmt.Errorf("open delta table %s: log has no version 0 and no readable checkpoint", dir)
		}
	}
	if err := t.st.writable(); err != nil {
		return nil, fmt.Errorf("open delta table %s: %w", dir, err)
	}
	return t, nil
}

// Dir returns the table's root directory.
func (t *Table) Dir() string { return t.dir }

// Version returns the table's latest version as of the last Open, Append
// or TxnVersion call: -1 while the table has no commit.
func (t *Table) Version() int64 {
	t.stMu.RLock()
	defer t.stMu.RUnlock()
	return t.st.version
}

// Schema returns the table's schema as of the last Open, Append or
// TxnVersion call (no columns while the table has no commit).
func (t *Table) Schema() Schema {
	t.stMu.RLock()
	defer t.stMu.RUnlock()
	return t.st.schema.clone()
}

// TxnVersion reads the log up to its latest commit and returns the latest
// version recorded for appID by a txn action, and whether there is one.
func (t *Table) TxnVersion(appID string) (int64, bool, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if err := t.refresh(); err != nil {
		return 0, false, fmt.Errorf("read txn version: %w", err)
	}
	t.stMu.RLock()
	defer t.stMu.RUnlock()
	v, ok := t.st.txns[appID]
	return v, ok, nil
}

// Append writes batch as one Parquet data file and commits it as the next
// version of the table, with a txn action for each Txn, in one commit. It
// returns the committed version.
//
// Under SchemaEvolve (the default) the batch's schema is checked and
// merged with the table's by the rules in the package documentation: new
// fields become new nullable columns (the commit then carries a metaData
// action), values are coerced where that loses nothing, and a conflict
// fails with a *SchemaConflictError (or a *DuplicateFieldError) before
// anything is written. Under SchemaEnforce every row is projected onto the
// table's schema instead (a new table's comes from the first record), and
// rows that cannot be fail the batch with a *RowsError naming every one of
// them; AppendReport says which fields were dropped.
//
// When the table already records, for a Txn's AppID, a version at least as
// high as the Txn's, nothing is written and the error wraps ErrTxnCommitted.
// When another writer takes the next version first, Append re-reads the
// log, re-checks txns and schema, and tries the next version, up to the
// WithMaxCommitAttempts bound. An empty batch with no Txn writes nothing and
// returns the current version; an empty batch with Txns commits only them.
//
// On error the returned version is the latest the table is known to have,
// and nothing was committed, with one exception: when the commit file was
// created but the log directory could not be synced, Append returns the new
// version with the error, and the batch is in the table.
func (t *Table) Append(ctx context.Context, batch []rows.Row, txns ...Txn) (version int64, err error) {
	r, err := t.AppendReport(ctx, batch, WithTxn(txns...))
	return r.Version, err
}

// AppendReport appends as Append does, with the txns of WithTxn and the
// member order of WithFieldOrder, and reports what schema enforcement
// (SchemaEnforce) dropped from the rows it wrote: the values of fields the
// table has no column for, counted by field path. On error the report
// holds only the version Append would return.
func (t *Table) AppendReport(ctx context.Context, batch []rows.Row, opts ...AppendOption) (Report, error) {
	var ao appendOptions
	for _, opt := range opts {
		opt(&ao)
	}
	var staged stagedFiles
	v, err := t.appendStaged(ctx, batch, &ao, &staged)
	r := Report{Version: v}
	if err == nil {
		r.Dropped = staged.dropped
	}
	return r, err
}

// appendStaged is Append, with the data files kept in staged across commit
// attempts.
func (t *Table) appendStaged(ctx context.Context, batch []rows.Row, ao *appendOptions, staged *stagedFiles) (int64, error) {
	txns := ao.txns
	if err := checkTxns(txns); err != nil {
		return t.Version(), fmt.Errorf("append: %w", err)
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if err := t.refresh(); err != nil {
		return t.Version(), fmt.Errorf("append: %w", err)
	}
	if len(batch) == 0 && len(txns) == 0 {
		return t.Version(), nil
	}

	done := false
	defer func() {
		if !done {
			staged.remove(t.dir)
		}
	}()
	for attempt := 1; ; attempt++ {
		if err := ctx.Err(); err != nil {
			return t.Version(), fmt.Errorf("append: %w", err)
		}
		st := t.state()
		if err := st.writable(); err != nil {
			return st.version, fmt.Errorf("append: %w", err)
		}
		if err := checkTxnsUncommitted(&st, txns); err != nil {
			return st.version, fmt.Errorf("append: %w", err)
		}
		schema, err := t.stageBatch(&st, batch, ao, staged)
		if err != nil {
			return st.version, fmt.Errorf("append: %w", err)
		}

		version := st.version + 1
		acts, err := t.commitActions(&st, version, schema, staged.files, txns)
		if err != nil {
			return st.version, fmt.Errorf("append: %w", err)
		}
		content, err := encodeCommit(acts)
		if err != nil {
			return st.version, fmt.Errorf("append: %w", err)
		}
		created, err := t.putIfAbsent(version, content, staged.durable)
		if created {
			done = true // the log references the data file now
			t.stMu.Lock()
			applyErr := t.st.apply(version, acts)
			t.stMu.Unlock()
			if err = errors.Join(err, applyErr); err != nil {
				return version, fmt.Errorf("append: committed version %d: %w", version, err)
			}
			t.maybeCheckpoint(version)
			return version, nil
		}
		if !errors.Is(err, errVersionTaken) {
			return st.version, fmt.Errorf("append: commit version %d: %w", version, err)
		}
		if attempt >= t.o.maxAttempts {
			return st.version, fmt.Errorf("append: version %d taken by another writer, %d attempts: %w",
				version, attempt, err)
		}
		if err := sleep(ctx, time.Duration(rand.IntN(min(attempt, 20))+1)*time.Millisecond); err != nil {
			return st.version, fmt.Errorf("append: %w", err)
		}
		if err := t.refresh(); err != nil {
			return t.Version(), fmt.Errorf("append: %w", err)
		}
	}
}

// checkTxnsUncommitted refuses a batch whose application transaction the table
// already holds at the same or a later version.
func checkTxnsUncommitted(st *tableState, txns []Txn) error {
	for _, x := range txns {
		if v, ok := st.txns[x.AppID]; ok && v >= x.Version {
			return fmt.Errorf("app %q is at version %d, batch at %d: %w",
				x.AppID, v, x.Version, ErrTxnCommitted)
		}
	}
	return nil
}

// stagedFiles are the data files an append has written (one, or one per
// part of a large batch: stageFlat), kept across commit attempts while the
// schema they were written under still holds.
type stagedFiles struct {
	files   []*dataFile
	schema  string
	dropped []DroppedField // what SchemaEnforce left out of the files
}

// stage replaces the staged files with the one written by write under
// schema.
func (s *stagedFiles) stage(dir, schema string, write func() (*dataFile, error)) error {
	s.remove(dir)
	df, err := write()
	if err != nil {
		return err
	}
	s.files, s.schema = []*dataFile{df}, schema
	return nil
}

// durable waits until every staged file is on disk.
func (s *stagedFiles) durable() error {
	var errs []error
	for _, df := range s.files {
		errs = append(errs, df.durable())
	}
	return errors.Join(errs...)
}

// remove deletes the staged files (no commit references them).
func (s *stagedFiles) remove(dir string) {
	for _, df := range s.files {
		removeDataFile(dir, df)
	}
	s.files = nil
}

// stageBatch evolves the table's schema for batch and writes its data file
// into staged, unless staged already holds one under the same schema. It
// returns the schema to commit, nil for a commit of transactions alone.
func (t *Table) stageBatch(st *tableState, batch []rows.Row, ao *appendOptions, staged *stagedFiles) (*Schema, error) {
	if len(batch) == 0 {
		if st.version < 0 {
			return nil, ErrNoColumns
		}
		return nil, nil
	}
	if t.o.mode == SchemaEnforce && st.version >= 0 && ao.values != nil {
		return t.stageFlat(st, batch, ao, staged)
	}
	batch = ao.rowsOf(batch)
	if t.o.mode == SchemaEnforce {
		return t.stageEnforced(st, batch, ao, staged)
	}
	ev, err := evolve(st.schema, batch)
	if err != nil {
		return nil, err
	}
	if st.version < 0 {
		ev.schema.Fields = ordered(ev.schema.Fields, ao.orderOf(0))
	}
	if len(ev.schema.Fields) == 0 {
		return nil, ErrNoColumns
	}
	if schema := ev.schema.String(); staged.files == nil || staged.schema != schema {
		if err := staged.stage(t.dir, schema, func() (*dataFile, error) { return t.writeBatch(ev, batch) }); err != nil {
			return nil, err
		}
	}
	return &ev.schema, nil
}

// stageEnforced projects batch onto the table's schema (a new table's
// from its first record, in that record's member order) and writes the projected rows' data file into
// staged, unless staged already holds one under the same schema.
func (t *Table) stageEnforced(st *tableState, batch []rows.Row, ao *appendOptions, staged *stagedFiles) (*Schema, error) {
	en, err := enforce(st.schema, st.version >= 0, batch, ao.orderOf)
	if err != nil {
		return nil, err
	}
	if len(en.schema.Fields) == 0 {
		return nil, ErrNoColumns
	}
	if schema := en.schema.String(); staged.files == nil || staged.schema != schema {
		write := func() (*dataFile, error) { return t.writeBatch(&evolution{schema: en.schema}, en.rows) }
		if err := staged.stage(t.dir, schema, write); err != nil {
			return nil, err
		}
	}
	staged.dropped = en.dropped
	return &en.schema, nil
}

// writeBatch writes the data file of a batch under the evolved schema.
func (t *Table) writeBatch(ev *evolution, batch []rows.Row) (*dataFile, error) {
	p, err := compile(ev.schema)
	if err != nil {
		return nil, err
	}
	return t.writeRows(p, len(batch), shredRows(p, ev.aliases, batch))
}

// writeRows writes the data file of n rows under plan p.
func (t *Table) writeRows(p *plan, n int, row rowFunc) (*dataFile, error) {
	if err := os.MkdirAll(t.dir, DirMode); err != nil {
		return nil, fmt.Errorf("create table directory: %w", err)
	}
	return writeDataFile(t.dir, p, n, row, &t.o)
}

// state returns a copy of the cached state (the txns map is copied too).
func (t *Table) state() tableState {
	t.stMu.RLock()
	defer t.stMu.RUnlock()
	st := t.st
	st.txns = maps.Clone(t.st.txns)
	return st
}

// refresh applies the commits written since the cached version, starting
// from the latest checkpoint when nothing is cached. Callers hold t.mu.
func (t *Table) refresh() error {
	if t.Version() < 0 {
		if err := t.loadLatestCheckpoint(); err != nil {
			return err
		}
	}
	for {
		next := t.Version() + 1
		acts, err := readCommit(t.dir, next)
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("read version %d: %w", next, err)
		}
		t.stMu.Lock()
		err = t.st.apply(next, acts)
		t.stMu.Unlock()
		if err != nil {
			return err
		}
	}
}

// checkTxns rejects an empty app id and two txns for one app.
func checkTxns(txns []Txn) error {
	seen := make(map[string]bool, len(txns))
	for _, x := range txns {
		if x.AppID == "" {
			return fmt.Errorf("txn with an empty app id")
		}
		if seen[x.AppID] {
			return fmt.Errorf("two txns for app %q in one commit", x.AppID)
		}
		seen[x.AppID] = true
	}
	return nil
}

// sleep waits for d or until ctx is done.
func sleep(ctx context.Context, d time.Duration) error {
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-timer.C:
		return nil
	}
}
