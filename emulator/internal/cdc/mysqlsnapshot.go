package cdc

import (
	"context"
	"fmt"
	"time"

	"github.com/go-mysql-org/go-mysql/mysql"
)

// Snapshot locking modes (snapshotLockingMode).
const (
	LockingMinimal  = "Minimal"
	LockingExtended = "Extended"
	LockingNone     = "None"
)

// snapshot reads every row of the tables in one consistent-snapshot
// transaction and hands them to the sink as read events, and returns the
// binlog position the snapshot is consistent with. Minimal locking (the
// default) holds a global read lock only while it reads that position and
// opens the transaction; Extended holds it through the reads; None takes
// no lock (the position is read before the transaction opens, so changes
// in between may arrive twice: at least once still).
func (r *myRun) snapshot(ctx context.Context) (myPosition, error) {
	c, conn := r.o.Conn, r.conn
	exec := func(q string) error {
		if _, err := conn.Execute(q); err != nil {
			return fmt.Errorf("%s: %w", q, myError(err, c))
		}
		return nil
	}
	if r.o.SnapshotMode == SnapshotNoData {
		return myMasterStatus(conn, c)
	}
	locking := r.o.SnapshotLocking
	if locking == "" {
		locking = LockingMinimal
	}
	if err := exec("SET SESSION time_zone = '+00:00'"); err != nil {
		return myPosition{}, err
	}
	if locking != LockingNone {
		if err := exec("FLUSH TABLES WITH READ LOCK"); err != nil {
			return myPosition{}, err
		}
		defer func() { _ = exec("UNLOCK TABLES") }()
	}
	start, err := myMasterStatus(conn, c)
	if err != nil {
		return myPosition{}, err
	}
	if err := exec("SET SESSION TRANSACTION ISOLATION LEVEL REPEATABLE READ"); err != nil {
		return myPosition{}, err
	}
	if err := exec("START TRANSACTION WITH CONSISTENT SNAPSHOT"); err != nil {
		return myPosition{}, err
	}
	defer func() { _ = exec("COMMIT") }()
	if locking == LockingMinimal {
		if err := exec("UNLOCK TABLES"); err != nil {
			return myPosition{}, err
		}
	}
	return start, r.readTables(ctx, start)
}

// readTables reads the tables inside the snapshot transaction.
func (r *myRun) readTables(ctx context.Context, start myPosition) error {
	at := time.Now()
	var pending []Event
	var last *Envelope
	var lastKey *Row
	push := func(env *Envelope, key *Row) error {
		ev, err := event(*env, key, at)
		if err != nil {
			return err
		}
		if pending = append(pending, ev); len(pending) >= snapshotBatch {
			err = r.sink(ctx, pending)
			pending = pending[:0]
		}
		return err
	}
	for _, t := range r.order() {
		var res mysql.Result
		var convErr error
		err := r.conn.ExecuteSelectStreaming("SELECT * FROM "+quoteMy(t.Schema)+"."+quoteMy(t.Name), &res,
			func(row []mysql.FieldValue) error {
				img, err := r.image(t, row)
				if err != nil {
					convErr = err
					return err
				}
				if last != nil {
					if err := push(last, lastKey); err != nil {
						return err
					}
				}
				env := Envelope{After: img, Op: OpRead, TsMs: time.Now().UnixMilli(),
					Source: r.source(t.tableRef, at, true, false, myAt{file: start.File, pos: start.Pos})}
				last, lastKey = &env, keyOf(img, t.key)
				return nil
			}, nil)
		if convErr != nil {
			return fmt.Errorf("snapshot %s: %w", t, convErr)
		}
		if err != nil {
			return fmt.Errorf("snapshot %s: %w", t, myError(err, r.o.Conn))
		}
	}
	if last != nil {
		s := last.Source.(mySource)
		s.Snapshot = snapshotFlag(true, true)
		last.Source = s
		if err := push(last, lastKey); err != nil {
			return err
		}
	}
	if len(pending) == 0 {
		return nil
	}
	return r.sink(ctx, pending)
}

// order is the captured tables in the order the source names them.
func (r *myRun) order() []*myTable {
	refs, _ := parseTables(r.o.Tables, r.o.Database)
	out := make([]*myTable, 0, len(refs))
	for _, t := range refs {
		if mt := r.tables[t]; mt != nil {
			out = append(out, mt)
		}
	}
	return out
}

// image converts a snapshot row (text protocol) of t.
func (r *myRun) image(t *myTable, row []mysql.FieldValue) (*Row, error) {
	if len(row) != len(t.cols) {
		return nil, fmt.Errorf("%d values for %d columns", len(row), len(t.cols))
	}
	img := &Row{}
	for i, col := range t.cols {
		var v any
		if row[i].Type != mysql.FieldValueTypeNull {
			v = row[i].Value()
		}
		if b, ok := v.([]byte); ok {
			v = string(b)
			if isBinary(col) {
				v = b
			}
		}
		jv, err := MyValue(col, v, r.o.DecimalHandling)
		if err != nil {
			return nil, fmt.Errorf("column %s: %w", col.Name, err)
		}
		img.Names, img.Values = append(img.Names, col.Name), append(img.Values, jv)
	}
	return img, nil
}

// isBinary reports whether col holds bytes rather than text.
func isBinary(col myColumn) bool {
	switch col.DataType {
	case "binary", "varbinary", "tinyblob", "blob", "mediumblob", "longblob", "geometry", "bit":
		return true
	}
	return false
}
