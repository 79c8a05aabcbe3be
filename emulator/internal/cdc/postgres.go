package cdc

import (
	"context"
	"encoding/base64"
	"fmt"
	"strconv"
	"time"

	"github.com/jackc/pglogrepl"
	"github.com/jackc/pgx/v5/pgconn"
)

// pgSource is source in a PostgreSQL change event, as Debezium's
// PostgreSQL connector writes it.
type pgSource struct {
	Version   string  `json:"version"`
	Connector string  `json:"connector"`
	Name      string  `json:"name"`
	TsMs      int64   `json:"ts_ms"`
	Snapshot  string  `json:"snapshot"`
	DB        string  `json:"db"`
	Sequence  *string `json:"sequence"`
	Schema    string  `json:"schema"`
	Table     string  `json:"table"`
	TxID      *int64  `json:"txId"`
	LSN       *int64  `json:"lsn"`
	Xmin      *int64  `json:"xmin"`
}

// pgRun is one run of a PostgreSQL source.
type pgRun struct {
	o      Options
	pos    Positions
	sink   Sink
	tables []pgTable
	byName map[tableRef]*pgTable
	rels   map[uint32]*pglogrepl.RelationMessage
}

// RunPostgres captures o's tables until ctx ends: it checks the server,
// the tables and the publication, snapshots the tables when no snapshot
// was delivered yet (snapshotMode), then streams their changes from the
// slot, saving the position after each delivered transaction. ready is
// called once the checks passed (before the snapshot) and again when
// streaming starts. It returns a coded *Error for what a user
// can fix, and nil when ctx ends.
func RunPostgres(ctx context.Context, o Options, pos Positions, sink Sink, ready func()) error {
	refs, err := parseTables(o.Tables, "public")
	if err != nil {
		return err
	}
	r := &pgRun{o: o, pos: pos, sink: sink, byName: map[tableRef]*pgTable{}, rels: map[uint32]*pglogrepl.RelationMessage{}}
	conn, err := pgConnect(ctx, o.Conn, false)
	if err != nil {
		return err
	}
	defer conn.Close(context.Background())
	if err := pgCheckServer(ctx, conn, o.Conn); err != nil {
		return err
	}
	if r.tables, err = pgResolveTables(ctx, conn, o.Conn, refs); err != nil {
		return err
	}
	for i := range r.tables {
		r.byName[r.tables[i].tableRef] = &r.tables[i]
	}
	pub := o.PublicationName
	if pub == "" {
		pub = DefaultPublication
	}
	if err := pgEnsurePublication(ctx, conn, o.Conn, pub, o.PublicationMode, r.tables); err != nil {
		return err
	}
	ready() // the server, tables and publication are fine: the snapshot (if any) runs
	start, err := r.prepare(ctx, conn)
	if err != nil || ctx.Err() != nil {
		return err
	}
	if o.SnapshotMode == SnapshotInitialOnly {
		ready()
		<-ctx.Done()
		return nil
	}
	return r.stream(ctx, pub, start, ready)
}

// prepare settles where streaming starts: from the saved position (its
// slot must still exist), or from a new slot after the initial snapshot.
func (r *pgRun) prepare(ctx context.Context, conn *pgconn.PgConn) (pglogrepl.LSN, error) {
	saved, err := r.pos.Load(ctx)
	if err != nil {
		return 0, err
	}
	p, lsn, err := decodePGPosition(saved)
	if err != nil {
		return 0, err
	}
	if p != nil && p.Slot != r.o.SlotName { // the source now names another slot: start afresh
		p = nil
	}
	exists, err := pgSlotExists(ctx, conn, r.o.Conn, r.o.SlotName)
	if err != nil {
		return 0, err
	}
	if p != nil && p.SnapshotDone {
		if !exists {
			return 0, fail(CodeSlotNotFound, "replication slot %q no longer exists on %s; the changes after LSN %s cannot be read (delete and recreate the source to snapshot again)", r.o.SlotName, r.o.addr(), p.LSN)
		}
		return lsn, nil
	}
	exported, start := "", pglogrepl.LSN(0)
	var repl *pgconn.PgConn
	if !exists {
		if repl, err = pgConnect(ctx, r.o.Conn, true); err != nil {
			return 0, err
		}
		defer repl.Close(context.Background())
		res, err := pglogrepl.CreateReplicationSlot(ctx, repl, r.o.SlotName, "pgoutput",
			pglogrepl.CreateReplicationSlotOptions{SnapshotAction: "EXPORT_SNAPSHOT"})
		if err != nil {
			return 0, fmt.Errorf("create replication slot %q: %w", r.o.SlotName, pgError(err, r.o.Conn))
		}
		exported = res.SnapshotName
		if start, err = pglogrepl.ParseLSN(res.ConsistentPoint); err != nil {
			return 0, fmt.Errorf("create replication slot %q: %w", r.o.SlotName, err)
		}
	}
	if r.o.SnapshotMode != SnapshotNoData {
		if err := r.snapshot(ctx, conn, exported); err != nil {
			return 0, err
		}
	}
	np := pgPosition{Slot: r.o.SlotName, LSN: start.String(), SnapshotDone: true}
	return start, r.pos.Save(ctx, np.encode())
}

// value converts one column of a row.
func (r *pgRun) value(oid uint32, typmod int32, data []byte, kind byte) (any, error) {
	switch kind {
	case 'n':
		return nil, nil
	case 'u':
		return UnavailableValue, nil
	case 'b':
		return base64.StdEncoding.EncodeToString(data), nil
	}
	if data == nil {
		return nil, nil
	}
	return PGValue(oid, typmod, data, r.o.DecimalHandling)
}

// source is the source block of an event of table t.
func (r *pgRun) source(t tableRef, at time.Time, snapshot, last bool, xid uint32, lsn pglogrepl.LSN) pgSource {
	s := pgSource{Version: DebeziumVersion, Connector: "postgresql", Name: r.o.Name, TsMs: at.UnixMilli(),
		Snapshot: snapshotFlag(snapshot, last), DB: r.o.Database, Schema: t.Schema, Table: t.Name}
	if !snapshot {
		tx, l := int64(xid), int64(lsn)
		seq := `[null,"` + strconv.FormatInt(l, 10) + `"]`
		s.TxID, s.LSN, s.Sequence = &tx, &l, &seq
	}
	return s
}
