//go:build container

package cdc

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/testcontainers/testcontainers-go"

	"github.com/fabrictest/fabrictest/fixtures/mariadb"
)

// startMariaDB starts a server and returns its connection settings (the
// fixture's CDC user).
func startMariaDB(t *testing.T, opts ...testcontainers.ContainerCustomizer) (*mariadb.Container, Conn) {
	t.Helper()
	ctx := context.Background()
	c, err := mariadb.Run(ctx, mariadb.ImageFromEnv(), opts...)
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

func runMy(t *testing.T, o Options, pos Positions, col *collector) (stop func() error) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		err := RunMySQL(ctx, o, pos, col.sink, func() {})
		if err != nil {
			t.Errorf("RunMySQL: %v", err)
		}
		done <- err
	}()
	return func() error { cancel(); return <-done }
}

func mustMy(t *testing.T, c *mariadb.Container, sql string) {
	t.Helper()
	if out, err := c.SQL(context.Background(), sql); err != nil {
		t.Fatalf("%s: %v %s", sql, err, out)
	}
}

// TestMySQLSnapshotThenChangesThenResume: as for PostgreSQL, on MariaDB's
// row-based binlog.
func TestMySQLSnapshotThenChangesThenResume(t *testing.T) {
	c, conn := startMariaDB(t)
	mustMy(t, c, `CREATE TABLE orders (id INT PRIMARY KEY, item VARCHAR(40), amount DECIMAL(10,2), status ENUM('new','paid'), at DATETIME);
		INSERT INTO orders VALUES (1, 'apple', 1.50, 'new', '2026-03-01 10:00:00'), (2, 'pear', 2.25, 'paid', NULL)`)
	o := Options{Conn: conn, Name: "mysrc", Tables: []string{"orders"}, ServerID: 4242, DecimalHandling: DecimalString}
	pos, col := &memPositions{}, &collector{}
	stop := runMy(t, o, pos, col)
	evs := col.wait(t, 2)
	for i, ev := range evs[:2] {
		if ev["op"] != "r" || field(ev, "after", "id") != float64(i+1) {
			t.Fatalf("snapshot event %d = %v", i, ev)
		}
	}
	if field(evs[1], "source", "snapshot") != "last" || field(evs[0], "source", "connector") != "mysql" ||
		field(evs[0], "source", "db") != "shop" || field(evs[0], "after", "amount") != "1.50" ||
		field(evs[0], "after", "status") != "new" || field(evs[0], "after", "at") != float64(1772359200000) {
		t.Fatalf("snapshot events' fields: %v", evs)
	}
	mustMy(t, c, `INSERT INTO orders VALUES (3, 'plum', 3.00, 'new', NULL); UPDATE orders SET item = 'green apple', status = 'paid' WHERE id = 1; DELETE FROM orders WHERE id = 2`)
	evs = col.wait(t, 5)
	for i, want := range []struct {
		op            string
		before, after any
	}{{"c", nil, float64(3)}, {"u", float64(1), float64(1)}, {"d", float64(2), nil}} {
		ev := evs[2+i]
		if ev["op"] != want.op || field(ev, "before", "id") != want.before || field(ev, "after", "id") != want.after ||
			field(ev, "source", "snapshot") != "false" || field(ev, "source", "file") == "" || field(ev, "source", "gtid") == nil {
			t.Fatalf("change %d = %v, want op %s", i, ev, want.op)
		}
	}
	if field(evs[3], "before", "item") != "apple" || field(evs[3], "after", "status") != "paid" {
		t.Fatalf("update's images: %v", evs[3])
	}
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	mustMy(t, c, `INSERT INTO orders VALUES (4, 'fig', 4.00, 'new', NULL)`)
	col2 := &collector{}
	stop = runMy(t, o, pos, col2)
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

// TestMySQLNamedErrors: a wrong password, a missing table, a purged binlog
// file and a server without a binlog each fail with their code.
func TestMySQLNamedErrors(t *testing.T) {
	c, conn := startMariaDB(t)
	mustMy(t, c, `CREATE TABLE t (id INT PRIMARY KEY)`)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	run := func(o Options, pos Positions) error {
		return RunMySQL(ctx, o, pos, (&collector{}).sink, func() {})
	}
	base := Options{Conn: conn, Tables: []string{"t"}, ServerID: 77}
	wrongPW := base
	wrongPW.Password = "wrong"
	missing := base
	missing.Tables = []string{"shop.nope"}
	for name, tc := range map[string]struct {
		o    Options
		pos  Positions
		code string
	}{
		"wrong password": {wrongPW, &memPositions{}, CodeAuthenticationFailed},
		"missing table":  {missing, &memPositions{}, CodeTableNotFound},
		"purged binlog":  {base, &memPositions{pos: `{"file":"mysql-bin.000000","pos":4,"snapshotDone":true}`}, CodePositionNotFound},
	} {
		err := run(tc.o, tc.pos)
		var ce *Error
		if !errors.As(err, &ce) || ce.ErrorCode != tc.code {
			t.Errorf("%s: got %v, want code %s", name, err, tc.code)
		}
	}
	noBinlog, conn2 := startMariaDB(t, mariadb.WithoutBinlog())
	mustMy(t, noBinlog, `CREATE TABLE t (id INT PRIMARY KEY)`)
	err := run(Options{Conn: conn2, Tables: []string{"t"}, ServerID: 77}, &memPositions{})
	var ce *Error
	if !errors.As(err, &ce) || ce.ErrorCode != CodeBinlogDisabled {
		t.Errorf("--skip-log-bin: got %v, want code %s", err, CodeBinlogDisabled)
	}
}
