package cdc

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
)

// snapshotBatch is how many snapshot rows go to the sink at a time.
const snapshotBatch = 500

// pgSnapshot reads every row of the tables in one repeatable-read
// transaction (on the slot's exported snapshot when there is one) and
// hands them to sink as read events; the last is marked "last".
func (r *pgRun) snapshot(ctx context.Context, conn *pgconn.PgConn, exported string) error {
	begin := "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY"
	if exported != "" {
		begin += "; SET TRANSACTION SNAPSHOT " + quoteLiteral(exported)
	}
	if err := conn.Exec(ctx, begin).Close(); err != nil {
		return fmt.Errorf("begin the snapshot: %w", pgError(err, r.o.Conn))
	}
	defer func() { _ = conn.Exec(context.WithoutCancel(ctx), "ROLLBACK").Close() }()
	at := time.Now()
	var pending []Event
	var last *Envelope
	var lastKey *Row
	flush := func() error {
		if len(pending) == 0 {
			return nil
		}
		err := r.sink(ctx, pending)
		pending = pending[:0]
		return err
	}
	for _, t := range r.tables {
		rr := conn.ExecParams(ctx, "SELECT * FROM "+t.pgQuoted(), nil, nil, nil, nil)
		fields := rr.FieldDescriptions()
		for rr.NextRow() {
			row := &Row{}
			for i, f := range fields {
				row.Names = append(row.Names, f.Name)
				v, err := r.value(f.DataTypeOID, f.TypeModifier, rr.Values()[i], 't')
				if err != nil {
					rr.Close()
					return fmt.Errorf("snapshot %s column %s: %w", t, f.Name, err)
				}
				row.Values = append(row.Values, v)
			}
			if last != nil {
				ev, err := event(*last, lastKey, at)
				if err != nil {
					rr.Close()
					return err
				}
				if pending = append(pending, ev); len(pending) >= snapshotBatch {
					if err := flush(); err != nil {
						rr.Close()
						return err
					}
				}
			}
			env := Envelope{After: row, Op: OpRead, TsMs: time.Now().UnixMilli(),
				Source: r.source(t.tableRef, at, true, false, 0, 0)}
			last, lastKey = &env, keyOf(row, t.key)
		}
		if _, err := rr.Close(); err != nil {
			return fmt.Errorf("snapshot %s: %w", t, pgError(err, r.o.Conn))
		}
	}
	if last != nil {
		last.Source = r.source(r.tableOf(last), at, true, true, 0, 0)
		ev, err := event(*last, lastKey, at)
		if err != nil {
			return err
		}
		pending = append(pending, ev)
	}
	return flush()
}

// tableOf is the table a snapshot envelope came from.
func (r *pgRun) tableOf(env *Envelope) tableRef {
	s := env.Source.(pgSource)
	return tableRef{s.Schema, s.Table}
}

// keyOf is the key columns of row (nil without a key).
func keyOf(row *Row, key []string) *Row {
	if row == nil || len(key) == 0 {
		return nil
	}
	k := &Row{}
	for _, name := range key {
		for i, n := range row.Names {
			if n == name {
				k.Names, k.Values = append(k.Names, n), append(k.Values, row.Values[i])
			}
		}
	}
	return k
}
