//go:build container

package cdc

import (
	"testing"
)

// TestDDLChangesTheNextEventsColumns: after a column is added, the next
// change of the table carries it, on PostgreSQL (pgoutput describes the
// relation again) and on MySQL (the DDL in the binlog makes the source read
// the columns again); no event stands for the DDL itself.
func TestDDLChangesTheNextEventsColumns(t *testing.T) {
	t.Run("PostgreSQL", func(t *testing.T) {
		c, conn := startPostgres(t)
		mustSQL(t, c, `CREATE TABLE items (id int PRIMARY KEY, name text)`)
		col := &collector{}
		stop := runPG(t, Options{Conn: conn, Tables: []string{"items"}, SlotName: "ddl_slot"}, &memPositions{}, col)
		defer stop()
		waitStreaming(t, func() { mustSQL(t, c, `INSERT INTO items VALUES (1, 'a')`) }, col)
		mustSQL(t, c, `ALTER TABLE items ADD COLUMN price int; INSERT INTO items VALUES (2, 'b', 7)`)
		evs := col.wait(t, 2)
		if len(evs) != 2 || field(evs[1], "after", "price") != float64(7) {
			t.Fatalf("events %v, want the insert after the DDL with price 7 and no other event", evs)
		}
	})
	t.Run("MySQL", func(t *testing.T) {
		c, conn := startMariaDB(t)
		mustMy(t, c, `CREATE TABLE items (id INT PRIMARY KEY, name VARCHAR(10))`)
		col := &collector{}
		stop := runMy(t, Options{Conn: conn, Tables: []string{"items"}, ServerID: 31}, &memPositions{}, col)
		defer stop()
		waitStreaming(t, func() { mustMy(t, c, `INSERT INTO items VALUES (1, 'a')`) }, col)
		mustMy(t, c, `ALTER TABLE items ADD COLUMN price INT; INSERT INTO items VALUES (2, 'b', 7)`)
		evs := col.wait(t, 2)
		if len(evs) != 2 || field(evs[1], "after", "price") != float64(7) {
			t.Fatalf("events %v, want the insert after the DDL with price 7 and no other event", evs)
		}
	})
}

// waitStreaming runs insert once the source streams and waits for its event.
func waitStreaming(t *testing.T, insert func(), col *collector) {
	t.Helper()
	insert()
	col.wait(t, 1)
}
