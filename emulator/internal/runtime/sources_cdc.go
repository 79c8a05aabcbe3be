package runtime

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"strconv"
	"time"

	"github.com/fabrictest/fabrictest/emulator/internal/cdc"
	"github.com/fabrictest/fabrictest/emulator/internal/drain"
	"github.com/fabrictest/fabrictest/emulator/internal/eventstream"
	"github.com/fabrictest/fabrictest/emulator/internal/store"
	"github.com/twmb/franz-go/pkg/kgo"
)

// CDC sources (PostgreSQLCDC, MySQLCDC) capture the changes of a
// database's tables (internal/cdc) into the Eventstream's DefaultStream
// topic, one Debezium change event per row change, keyed by the row's
// primary key. Their position is saved in the store after each delivered
// transaction, so a restart (of the source or of the emulator) resumes
// there: delivery is at least once. A failed source retries every
// cdcRetry and shows its error, with the cdc package's code, meanwhile.

// cdcRetry is how long a failed CDC source waits before trying again.
const cdcRetry = 2 * time.Second

// Default ports of the CDC sources' servers (the definitions' defaults).
const (
	postgresPort = 5432
	mysqlPort    = 3306
)

// cdcSource sets the CDC source s of run source src (workspace ws): its
// properties and its connection, or why the connection is missing.
func (rt *Runtime) cdcSource(ctx context.Context, ws string, src eventstream.Source, s *sourceSpec) {
	c := *src.CDC
	s.CDC = &c
	conn, err := rt.DataConnection(ctx, ws, c.DataConnectionID)
	switch {
	case errors.Is(err, store.ErrNotFound):
		s.ConnErr = fmt.Sprintf("connection %s is not registered in this workspace; PUT /v1/_emulator/connections/%s with its workspaceId, server, database, username and password", c.DataConnectionID, c.DataConnectionID)
	case err != nil:
		s.ConnErr = err.Error()
	case conn.Server == "":
		s.ConnErr = fmt.Sprintf("connection %s is not a database connection (server, database)", c.DataConnectionID)
	default:
		s.Conn = &conn
	}
}

// runCDC captures the source's tables until ctx ends, starting over after
// cdcRetry whenever it fails.
func (rt *Runtime) runCDC(ctx context.Context, run *sourceRunner, log *slog.Logger) {
	for {
		err := recovered(func() error { return rt.captureCDC(ctx, run) })
		if ctx.Err() != nil {
			return
		}
		if pe := (*drain.PanicError)(nil); errors.As(err, &pe) {
			log.Error("cdc source panicked; recovered", "panic", fmt.Sprint(pe.Value), "stack", string(pe.Stack))
		}
		if err == nil {
			err = errors.New("the change feed ended")
		}
		log.Warn("cdc source failed", "err", err)
		run.fail(err)
		select {
		case <-ctx.Done():
			return
		case <-time.After(cdcRetry):
		}
	}
}

// captureCDC runs one capture of the source.
func (rt *Runtime) captureCDC(ctx context.Context, run *sourceRunner) error {
	s := run.spec
	if s.ConnErr != "" {
		return errors.New(s.ConnErr)
	}
	o := cdcOptions(s)
	pos := storePositions{rt.cfg.Store, s.EventstreamID, s.ID}
	sink := func(ctx context.Context, evs []cdc.Event) error { return rt.produceCDC(ctx, run, evs) }
	if s.Type == eventstream.MySQLCDCType {
		return cdc.RunMySQL(ctx, o, pos, sink, run.ok)
	}
	return cdc.RunPostgres(ctx, o, pos, sink, run.ok)
}

// cdcOptions are the cdc package's options for source s.
func cdcOptions(s sourceSpec) cdc.Options {
	c, conn := s.CDC, s.Conn
	port := c.Port
	if port == 0 {
		port = postgresPort
		if s.Type == eventstream.MySQLCDCType {
			port = mysqlPort
		}
	}
	host := conn.Server
	if h, p, err := net.SplitHostPort(conn.Server); err == nil {
		if n, err := strconv.Atoi(p); err == nil {
			host, port = h, n
		}
	}
	return cdc.Options{
		Conn:            cdc.Conn{Host: host, Port: port, Database: conn.Database, User: conn.Username, Password: conn.Password},
		Name:            cmp.Or(c.Name, s.ID),
		Tables:          cdc.SplitTables(c.TableName),
		SnapshotMode:    cmp.Or(c.SnapshotMode, cdc.SnapshotInitial),
		DecimalHandling: cmp.Or(c.DecimalHandlingMode, cdc.DecimalPrecise),
		SlotName:        c.SlotName,
		PublicationName: c.PublicationName,
		PublicationMode: cmp.Or(c.PublicationAutoCreateMode, cdc.PublicationFiltered),
		ServerID:        uint32(c.ServerID),
		SnapshotLocking: cmp.Or(c.SnapshotLockingMode, cdc.LockingMinimal),
	}
}

// produceCDC produces evs into the DefaultStream topic; the capture saves
// its position only once this returned nil.
func (rt *Runtime) produceCDC(ctx context.Context, run *sourceRunner, evs []cdc.Event) error {
	recs := make([]*kgo.Record, len(evs))
	for i, ev := range evs {
		recs[i] = &kgo.Record{Key: ev.Key, Value: ev.Value, Timestamp: ev.Time}
	}
	pctx, cancel := context.WithTimeout(ctx, rt.cfg.ProduceTimeout)
	defer cancel()
	_, err := rt.cfg.Broker.Produce(pctx, run.spec.Topic, recs)
	rt.countSource(err, run, recs) // data insights
	if err != nil {
		return fmt.Errorf("produce into the Eventstream: %w", err)
	}
	return nil
}

// storePositions keeps a CDC source's position in the store.
type storePositions struct {
	st      *store.Store
	es, src string
}

func (p storePositions) Load(ctx context.Context) (string, error) {
	pos, err := p.st.SourcePosition(ctx, p.es, p.src)
	if errors.Is(err, store.ErrNotFound) {
		return "", nil
	}
	return pos, err
}

func (p storePositions) Save(ctx context.Context, pos string) error {
	return p.st.PutSourcePosition(ctx, p.es, p.src, pos)
}
