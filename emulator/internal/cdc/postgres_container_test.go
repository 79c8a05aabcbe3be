//go:build container

package cdc

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/testcontainers/testcontainers-go"

	"github.com/fabrictest/fabrictest/fixtures/postgres"
)

// startPostgres starts a server and returns its connection settings.
func startPostgres(t *testing.T, opts ...testcontainers.ContainerCustomizer) (*postgres.Container, Conn) {
	t.Helper()
	ctx := context.Background()
	c, err := postgres.Run(ctx, postgres.ImageFromEnv(), opts...)
	testcontainers.CleanupContainer(t, c)
	if err != nil {
		t.Fatal(err)
	}
	host, port, err := c.HostPort(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return c, Conn{Host: host, Port: port, Database: c.Database, User: c.User, Password: c.Password}
}

// runPG runs RunPostgres in the background and returns its stop.
func runPG(t *testing.T, o Options, pos Positions, col *collector) (stop func() error) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		err := RunPostgres(ctx, o, pos, col.sink, func() {})
		if err != nil {
			t.Errorf("RunPostgres: %v", err)
		}
		done <- err
	}()
	return func() error { cancel(); return <-done }
}

func mustSQL(t *testing.T, c *postgres.Container, sql string) {
	t.Helper()
	if out, err := c.SQL(context.Background(), sql); err != nil {
		t.Fatalf("%s: %v %s", sql, err, out)
	}
}

// TestPostgresSnapshotThenChangesThenResume: the rows already in the table
// arrive as read events, then inserts, updates and deletes in commit order
// with their before and after images; a new run with the saved position
// resumes after the last delivered change, with no second snapshot.
func TestPostgresSnapshotThenChangesThenResume(t *testing.T) {
	c, conn := startPostgres(t)
	mustSQL(t, c, `CREATE TABLE public.orders (id int PRIMARY KEY, item text, amount numeric(10,2), at timestamptz);
		ALTER TABLE public.orders REPLICA IDENTITY FULL;
		INSERT INTO orders VALUES (1, 'apple', 1.50, '2026-03-01 10:00:00+00'), (2, 'pear', 2.25, NULL)`)
	o := Options{Conn: conn, Name: "pgsrc", Tables: []string{"orders"}, SlotName: "fabric_slot", DecimalHandling: DecimalString}
	pos, col := &memPositions{}, &collector{}
	stop := runPG(t, o, pos, col)
	evs := col.wait(t, 2)
	for i, ev := range evs[:2] {
		if ev["op"] != "r" || field(ev, "after", "id") != float64(i+1) || field(ev, "before") != nil {
			t.Fatalf("snapshot event %d = %v", i, ev)
		}
	}
	if field(evs[1], "source", "snapshot") != "last" || field(evs[0], "source", "connector") != "postgresql" ||
		field(evs[0], "source", "table") != "orders" || field(evs[0], "after", "amount") != "1.50" ||
		field(evs[0], "after", "at") != "2026-03-01T10:00:00Z" {
		t.Fatalf("snapshot events' fields: %v", evs)
	}
	mustSQL(t, c, `INSERT INTO orders VALUES (3, 'plum', 3.00, NULL); UPDATE orders SET item = 'green apple' WHERE id = 1; DELETE FROM orders WHERE id = 2`)
	evs = col.wait(t, 5)
	for i, want := range []struct {
		op            string
		before, after any
	}{{"c", nil, float64(3)}, {"u", float64(1), float64(1)}, {"d", float64(2), nil}} {
		ev := evs[2+i]
		if ev["op"] != want.op || field(ev, "before", "id") != want.before || field(ev, "after", "id") != want.after ||
			field(ev, "source", "snapshot") != "false" || field(ev, "source", "lsn") == nil {
			t.Fatalf("change %d = %v, want op %s", i, ev, want.op)
		}
	}
	if field(evs[3], "before", "item") != "apple" || field(evs[3], "after", "item") != "green apple" {
		t.Fatalf("update's images: %v", evs[3])
	}
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	mustSQL(t, c, `INSERT INTO orders VALUES (4, 'fig', 4.00, NULL)`)
	col2 := &collector{}
	stop = runPG(t, o, pos, col2)
	defer stop()
	evs = col2.wait(t, 1)
	time.Sleep(time.Second)
	col2.mu.Lock()
	n := len(col2.events)
	col2.mu.Unlock()
	if n != 1 || evs[0]["op"] != "c" || field(evs[0], "after", "id") != float64(4) {
		t.Fatalf("after the restart got %d events, first %v; want only the insert of 4", n, evs[0])
	}
}

// TestPostgresNamedErrors: a wrong password, a missing table, a dropped
// slot and a server without logical replication each fail with their code.
func TestPostgresNamedErrors(t *testing.T) {
	c, conn := startPostgres(t)
	mustSQL(t, c, `CREATE TABLE t (id int PRIMARY KEY)`)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	run := func(o Options, pos Positions) error {
		return RunPostgres(ctx, o, pos, (&collector{}).sink, func() {})
	}
	bad := conn
	bad.Password = "wrong"
	base := Options{Conn: conn, Tables: []string{"t"}, SlotName: "s1"}
	wrongPW := base
	wrongPW.Conn = bad
	missing := base
	missing.Tables = []string{"public.nope"}
	for name, tc := range map[string]struct {
		o    Options
		pos  Positions
		code string
	}{
		"wrong password": {wrongPW, &memPositions{}, CodeAuthenticationFailed},
		"missing table":  {missing, &memPositions{}, CodeTableNotFound},
		"dropped slot":   {base, &memPositions{pos: `{"slot":"s1","lsn":"0/1000000","snapshotDone":true}`}, CodeSlotNotFound},
	} {
		err := run(tc.o, tc.pos)
		var ce *Error
		if !errors.As(err, &ce) || ce.ErrorCode != tc.code {
			t.Errorf("%s: got %v, want code %s", name, err, tc.code)
		}
	}
	_, noLogical := startPostgres(t, postgres.WithoutLogicalReplication())
	err := run(Options{Conn: noLogical, Tables: []string{"t"}, SlotName: "s1"}, &memPositions{})
	var ce *Error
	if !errors.As(err, &ce) || ce.ErrorCode != CodeLogicalReplicationDisabled {
		t.Errorf("wal_level=replica: got %v, want code %s", err, CodeLogicalReplicationDisabled)
	}
}
