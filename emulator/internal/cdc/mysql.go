package cdc

import (
	"context"
	"time"

	"github.com/go-mysql-org/go-mysql/client"
)

// mySource is source in a MySQL change event, as Debezium's MySQL
// connector writes it.
type mySource struct {
	Version   string  `json:"version"`
	Connector string  `json:"connector"`
	Name      string  `json:"name"`
	TsMs      int64   `json:"ts_ms"`
	Snapshot  string  `json:"snapshot"`
	DB        string  `json:"db"`
	Sequence  *string `json:"sequence"`
	Table     string  `json:"table"`
	ServerID  int64   `json:"server_id"`
	GTID      *string `json:"gtid"`
	File      string  `json:"file"`
	Pos       int64   `json:"pos"`
	Row       int     `json:"row"`
	Thread    *int64  `json:"thread"`
	Query     *string `json:"query"`
}

// myRun is one run of a MySQL source.
type myRun struct {
	o      Options
	pos    Positions
	sink   Sink
	srv    myServer
	tables map[tableRef]*myTable
	conn   *client.Conn // for schema lookups while streaming
}

// RunMySQL captures o's tables until ctx ends, as RunPostgres does: it
// checks the server (a row-based binary log) and the tables, snapshots
// them when no snapshot was delivered yet, then streams their changes from
// the binlog, saving the file and position after each delivered
// transaction.
func RunMySQL(ctx context.Context, o Options, pos Positions, sink Sink, ready func()) error {
	refs, err := parseTables(o.Tables, o.Database)
	if err != nil {
		return err
	}
	conn, err := myConnect(ctx, o.Conn)
	if err != nil {
		return err
	}
	defer conn.Close()
	r := &myRun{o: o, pos: pos, sink: sink, tables: map[tableRef]*myTable{}, conn: conn}
	if r.srv, err = myCheckServer(conn, o.Conn); err != nil {
		return err
	}
	for _, t := range refs {
		mt, ok, err := myLoadTable(conn, o.Conn, t)
		if err != nil {
			return err
		}
		if !ok {
			return fail(CodeTableNotFound, "table %s does not exist on MySQL at %s", t, o.addr())
		}
		r.tables[t] = &mt
	}
	ready() // the server and tables are fine: the snapshot (if any) runs
	start, err := r.prepare(ctx)
	if err != nil || ctx.Err() != nil {
		return err
	}
	if o.SnapshotMode == SnapshotInitialOnly {
		ready()
		<-ctx.Done()
		return nil
	}
	return r.stream(ctx, start, ready)
}

// prepare settles where streaming starts: the saved position (its binlog
// file must still be on the server), or the server's position at the
// snapshot.
func (r *myRun) prepare(ctx context.Context) (myPosition, error) {
	saved, err := r.pos.Load(ctx)
	if err != nil {
		return myPosition{}, err
	}
	p, err := decodeMyPosition(saved)
	if err != nil {
		return myPosition{}, err
	}
	if p != nil && p.SnapshotDone {
		has, err := myHasBinlog(r.conn, r.o.Conn, p.File)
		if err != nil {
			return myPosition{}, err
		}
		if !has {
			return myPosition{}, fail(CodePositionNotFound, "binlog file %s (position %d) is no longer on MySQL at %s (purged); the changes after it cannot be read (delete and recreate the source to snapshot again)", p.File, p.Pos, r.o.addr())
		}
		return *p, nil
	}
	start, err := r.snapshot(ctx)
	if err != nil {
		return myPosition{}, err
	}
	start.SnapshotDone = true
	return start, r.pos.Save(ctx, start.encode())
}

// source is the source block of an event of table t.
func (r *myRun) source(t tableRef, at time.Time, snapshot, last bool, at2 myAt) mySource {
	s := mySource{Version: DebeziumVersion, Connector: "mysql", Name: r.o.Name, TsMs: at.UnixMilli(),
		Snapshot: snapshotFlag(snapshot, last), DB: t.Schema, Table: t.Name, ServerID: int64(at2.serverID),
		File: at2.file, Pos: int64(at2.pos), Row: at2.row}
	if gtid := at2.gtid; gtid != "" {
		s.GTID = &gtid
	}
	return s
}

// myAt is where in the binlog an event is: the file, the position of its
// transaction's start, the row within its rows event, the transaction's
// GTID and the server that wrote it.
type myAt struct {
	file     string
	pos      uint32
	row      int
	gtid     string
	serverID uint32
}
