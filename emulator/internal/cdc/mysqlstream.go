package cdc

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"time"

	"github.com/go-mysql-org/go-mysql/mysql"
	"github.com/go-mysql-org/go-mysql/replication"
	"github.com/google/uuid"
)

// myTxn is the transaction being streamed.
type myTxn struct {
	at     myAt
	commit time.Time
	events []Event
}

// stream reads the binlog from start and delivers each transaction's
// changes to the captured tables at its commit (XID event).
func (r *myRun) stream(ctx context.Context, start myPosition, ready func()) error {
	c := r.o.Conn
	syncer := replication.NewBinlogSyncer(replication.BinlogSyncerConfig{
		ServerID: r.o.ServerID, Flavor: r.srv.flavor, Host: c.Host, Port: uint16(c.Port), User: c.User, Password: c.Password,
		TimestampStringLocation: time.UTC, HeartbeatPeriod: 5 * time.Second, ReadTimeout: 30 * time.Second,
		DisableRetrySync: true, Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
	})
	defer syncer.Close()
	streamer, err := syncer.StartSync(mysql.Position{Name: start.File, Pos: start.Pos})
	if err != nil {
		return fmt.Errorf("read the binlog from %s:%d: %w", start.File, start.Pos, myError(err, c))
	}
	ready()
	file, gtid := start.File, start.GTID
	txn := &myTxn{}
	for {
		ev, err := streamer.GetEvent(ctx)
		if ctx.Err() != nil {
			return nil
		}
		if err != nil {
			return fmt.Errorf("read the binlog after %s: %w", file, myError(err, c))
		}
		h := ev.Header
		switch e := ev.Event.(type) {
		case *replication.RotateEvent:
			file = string(e.NextLogName)
		case *replication.MariadbGTIDEvent:
			gtid = e.GTID.String()
			txn = &myTxn{at: myAt{file: file, pos: h.LogPos - h.EventSize, gtid: gtid, serverID: h.ServerID}, commit: time.Unix(int64(h.Timestamp), 0)}
		case *replication.GTIDEvent:
			if id, err := uuid.FromBytes(e.SID); err == nil {
				gtid = fmt.Sprintf("%s:%d", id, e.GNO)
			}
			txn = &myTxn{at: myAt{file: file, pos: h.LogPos - h.EventSize, gtid: gtid, serverID: h.ServerID}, commit: time.Unix(int64(h.Timestamp), 0)}
		case *replication.QueryEvent:
			q := strings.TrimSpace(string(e.Query))
			switch {
			case strings.EqualFold(q, "BEGIN"):
				if txn.at.file == "" {
					txn = &myTxn{at: myAt{file: file, pos: h.LogPos - h.EventSize, gtid: gtid, serverID: h.ServerID}, commit: time.Unix(int64(h.Timestamp), 0)}
				}
			case strings.EqualFold(q, "COMMIT"): // a non-transactional engine's statement
				if err := r.commit(ctx, txn, file, h.LogPos, gtid); err != nil {
					return err
				}
				txn = &myTxn{}
			default: // DDL: the captured tables' columns are read again
				if err := r.reloadTables(); err != nil {
					return err
				}
				txn = &myTxn{}
			}
		case *replication.RowsEvent:
			if err := r.rows(ctx, txn, h, e); err != nil {
				return err
			}
		case *replication.XIDEvent:
			if err := r.commit(ctx, txn, file, h.LogPos, gtid); err != nil {
				return err
			}
			txn = &myTxn{}
		}
	}
}

// commit delivers the transaction's events and saves the position after it.
func (r *myRun) commit(ctx context.Context, txn *myTxn, file string, pos uint32, gtid string) error {
	if len(txn.events) == 0 {
		return nil
	}
	if err := r.sink(ctx, txn.events); err != nil {
		return err
	}
	return r.pos.Save(ctx, myPosition{File: file, Pos: pos, GTID: gtid, SnapshotDone: true}.encode())
}

// rows turns a rows event of a captured table into change events.
func (r *myRun) rows(ctx context.Context, txn *myTxn, h *replication.EventHeader, e *replication.RowsEvent) error {
	t := r.tables[tableRef{string(e.Table.Schema), string(e.Table.Table)}]
	if t == nil {
		return nil
	}
	if int(e.ColumnCount) != len(t.cols) { // a change of columns the DDL event did not tell
		if err := r.reloadTables(); err != nil {
			return err
		}
		if int(e.ColumnCount) != len(t.cols) {
			return fmt.Errorf("binlog rows of %s have %d columns; the table has %d", t, e.ColumnCount, len(t.cols))
		}
	}
	if txn.at.file == "" {
		txn.at = myAt{pos: h.LogPos - h.EventSize, serverID: h.ServerID}
		txn.commit = time.Unix(int64(h.Timestamp), 0)
	}
	op, step := OpCreate, 1
	switch e.Type() {
	case replication.EnumRowsEventTypeUpdate:
		op, step = OpUpdate, 2
	case replication.EnumRowsEventTypeDelete:
		op = OpDelete
	case replication.EnumRowsEventTypeInsert:
	default:
		return nil
	}
	for i := 0; i+step <= len(e.Rows); i += step {
		img, err := r.binlogImage(t, e.Rows[i])
		if err != nil {
			return err
		}
		var before, after *Row
		switch op {
		case OpCreate:
			after = img
		case OpDelete:
			before = img
		case OpUpdate:
			before = img
			if after, err = r.binlogImage(t, e.Rows[i+1]); err != nil {
				return err
			}
		}
		at := txn.at
		at.row = i / step
		env := Envelope{Before: before, After: after, Op: op, TsMs: time.Now().UnixMilli(),
			Source: r.source(t.tableRef, txn.commit, false, false, at)}
		keyRow := after
		if keyRow == nil {
			keyRow = before
		}
		ev, err := event(env, keyOf(keyRow, t.key), txn.commit)
		if err != nil {
			return err
		}
		txn.events = append(txn.events, ev)
	}
	if len(txn.events) >= txnFlush {
		err := r.sink(ctx, txn.events)
		txn.events = nil
		return err
	}
	return nil
}

// binlogImage converts a binlog row of t.
func (r *myRun) binlogImage(t *myTable, row []any) (*Row, error) {
	img := &Row{}
	for i, col := range t.cols {
		var v any
		if i < len(row) {
			v = row[i]
		}
		jv, err := MyValue(col, v, r.o.DecimalHandling)
		if err != nil {
			return nil, fmt.Errorf("%s column %s: %w", t, col.Name, err)
		}
		img.Names, img.Values = append(img.Names, col.Name), append(img.Values, jv)
	}
	return img, nil
}

// reloadTables reads the captured tables' columns again (after DDL). A
// table that went away keeps its last columns; its rows no longer come.
func (r *myRun) reloadTables() error {
	for ref, t := range r.tables {
		mt, ok, err := myLoadTable(r.conn, r.o.Conn, ref)
		if err != nil {
			return err
		}
		if ok {
			*t = mt
		}
	}
	return nil
}
