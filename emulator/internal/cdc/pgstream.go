package cdc

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pglogrepl"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgproto3"
)

// statusInterval is how often the stream tells the server how far it has
// delivered (and proves it is alive).
const statusInterval = 5 * time.Second

// txnFlush is how many events of one transaction are handed to the sink
// before its commit (a big transaction is not held whole in memory; its
// position is saved at the commit only).
const txnFlush = 1000

// pgTxn is the transaction being streamed.
type pgTxn struct {
	xid    uint32
	commit time.Time
	events []Event
}

// stream reads the slot from start and delivers each transaction's
// changes to the captured tables at its commit.
func (r *pgRun) stream(ctx context.Context, pub string, start pglogrepl.LSN, ready func()) error {
	repl, err := pgConnect(ctx, r.o.Conn, true)
	if err != nil {
		return err
	}
	defer repl.Close(context.Background())
	err = pglogrepl.StartReplication(ctx, repl, r.o.SlotName, start, pglogrepl.StartReplicationOptions{
		PluginArgs: []string{"proto_version '1'", "publication_names " + quoteLiteral(pub)}})
	if err != nil {
		var pe *pgconn.PgError
		if errors.As(err, &pe) && pe.Code == "42704" {
			return fail(CodeSlotNotFound, "replication slot %q does not exist on %s", r.o.SlotName, r.o.addr())
		}
		return fmt.Errorf("start replication from slot %q: %w", r.o.SlotName, pgError(err, r.o.Conn))
	}
	ready()
	flushed := start
	next := time.Now().Add(statusInterval)
	var txn *pgTxn
	for {
		if time.Now().After(next) {
			if err := pglogrepl.SendStandbyStatusUpdate(ctx, repl, pglogrepl.StandbyStatusUpdate{WALWritePosition: flushed}); err != nil {
				return ctxOr(ctx, fmt.Errorf("send status: %w", err))
			}
			next = time.Now().Add(statusInterval)
		}
		rctx, cancel := context.WithDeadline(ctx, next)
		msg, err := repl.ReceiveMessage(rctx)
		cancel()
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			if pgconn.Timeout(err) {
				continue
			}
			return fmt.Errorf("receive from slot %q: %w", r.o.SlotName, pgError(err, r.o.Conn))
		}
		switch m := msg.(type) {
		case *pgproto3.ErrorResponse:
			return fmt.Errorf("replication from slot %q: %w", r.o.SlotName, pgError(pgconn.ErrorResponseToPgError(m), r.o.Conn))
		case *pgproto3.CopyData:
			if len(m.Data) == 0 {
				continue
			}
			switch m.Data[0] {
			case pglogrepl.PrimaryKeepaliveMessageByteID:
				ka, err := pglogrepl.ParsePrimaryKeepaliveMessage(m.Data[1:])
				if err != nil {
					return fmt.Errorf("read keepalive: %w", err)
				}
				if ka.ReplyRequested {
					next = time.Time{}
				}
			case pglogrepl.XLogDataByteID:
				xld, err := pglogrepl.ParseXLogData(m.Data[1:])
				if err != nil {
					return fmt.Errorf("read WAL data: %w", err)
				}
				done, err := r.apply(ctx, xld, &txn)
				if err != nil {
					return err
				}
				if done != 0 {
					flushed, next = done, time.Time{}
				}
			}
		}
	}
}

// apply decodes one pgoutput message; at a commit whose events were
// delivered and whose position was saved, it returns the commit's end LSN.
func (r *pgRun) apply(ctx context.Context, xld pglogrepl.XLogData, txn **pgTxn) (pglogrepl.LSN, error) {
	msg, err := pglogrepl.Parse(xld.WALData)
	if err != nil {
		return 0, fmt.Errorf("decode pgoutput message: %w", err)
	}
	switch m := msg.(type) {
	case *pglogrepl.RelationMessage:
		r.rels[m.RelationID] = m
	case *pglogrepl.BeginMessage:
		*txn = &pgTxn{xid: m.Xid, commit: m.CommitTime}
	case *pglogrepl.InsertMessage:
		return 0, r.change(ctx, *txn, m.RelationID, OpCreate, nil, m.Tuple, xld.WALStart)
	case *pglogrepl.UpdateMessage:
		return 0, r.change(ctx, *txn, m.RelationID, OpUpdate, m.OldTuple, m.NewTuple, xld.WALStart)
	case *pglogrepl.DeleteMessage:
		return 0, r.change(ctx, *txn, m.RelationID, OpDelete, m.OldTuple, nil, xld.WALStart)
	case *pglogrepl.CommitMessage:
		t := *txn
		*txn = nil
		if t != nil && len(t.events) > 0 {
			if err := r.sink(ctx, t.events); err != nil {
				return 0, err
			}
		}
		p := pgPosition{Slot: r.o.SlotName, LSN: m.TransactionEndLSN.String(), SnapshotDone: true}
		if t != nil && len(t.events) > 0 {
			if err := r.pos.Save(ctx, p.encode()); err != nil {
				return 0, err
			}
		}
		return m.TransactionEndLSN, nil
	}
	return 0, nil
}

// change adds one row change of relation rel to the transaction.
func (r *pgRun) change(ctx context.Context, txn *pgTxn, rel uint32, op string, old, new *pglogrepl.TupleData, lsn pglogrepl.LSN) error {
	rm := r.rels[rel]
	if rm == nil {
		return fmt.Errorf("pgoutput sent a change of relation %d before describing it", rel)
	}
	t := r.byName[tableRef{rm.Namespace, rm.RelationName}]
	if t == nil || txn == nil {
		return nil // a table of the publication this source does not capture
	}
	before, err := r.tuple(rm, old)
	if err != nil {
		return err
	}
	after, err := r.tuple(rm, new)
	if err != nil {
		return err
	}
	env := Envelope{Before: before, After: after, Op: op, TsMs: time.Now().UnixMilli(),
		Source: r.source(t.tableRef, txn.commit, false, false, txn.xid, lsn)}
	keyRow := after
	if keyRow == nil {
		keyRow = before
	}
	ev, err := event(env, keyOf(keyRow, t.key), txn.commit)
	if err != nil {
		return err
	}
	if txn.events = append(txn.events, ev); len(txn.events) >= txnFlush {
		err := r.sink(ctx, txn.events)
		txn.events = nil
		return err
	}
	return nil
}

// tuple decodes a tuple of relation rm (nil stays nil).
func (r *pgRun) tuple(rm *pglogrepl.RelationMessage, td *pglogrepl.TupleData) (*Row, error) {
	if td == nil {
		return nil, nil
	}
	row := &Row{}
	for i, col := range td.Columns {
		if i >= len(rm.Columns) {
			return nil, fmt.Errorf("pgoutput sent %d columns for %s.%s, which has %d", len(td.Columns), rm.Namespace, rm.RelationName, len(rm.Columns))
		}
		c := rm.Columns[i]
		v, err := r.value(c.DataType, c.TypeModifier, col.Data, col.DataType)
		if err != nil {
			return nil, fmt.Errorf("%s.%s column %s: %w", rm.Namespace, rm.RelationName, c.Name, err)
		}
		row.Names, row.Values = append(row.Names, c.Name), append(row.Values, v)
	}
	return row, nil
}

// ctxOr is nil when ctx ended (the error is the cancellation's), err otherwise.
func ctxOr(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return nil
	}
	return err
}
