//go:build container

package emulator_test

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/testcontainers/testcontainers-go"

	"github.com/fabrictest/fabrictest/emulator"
	"github.com/fabrictest/fabrictest/emulator/delta"
	"github.com/fabrictest/fabrictest/fixtures/mariadb"
	"github.com/fabrictest/fabrictest/fixtures/postgres"
)

// cdcCase is one CDC source type against its real server.
type cdcCase struct {
	typ   string
	conn  map[string]any                  // the connection's registration, but workspaceId
	props map[string]any                  // the source's properties, but dataConnectionId
	sql   func(t *testing.T, stmt string) // runs SQL on the server as its admin
}

// startCDCServer starts the server a CDC source type reads, with table
// orders(id, item) holding two rows.
func startCDCServer(t *testing.T, typ string) cdcCase {
	t.Helper()
	ctx := context.Background()
	const table = "CREATE TABLE orders (id INT PRIMARY KEY, item VARCHAR(40)); INSERT INTO orders VALUES (1, 'apple'), (2, 'pear')"
	if typ == "PostgreSQLCDC" {
		c, err := postgres.Run(ctx, postgres.ImageFromEnv())
		testcontainers.CleanupContainer(t, c)
		if err != nil {
			t.Fatal(err)
		}
		host, port, _ := c.HostPort(ctx)
		cc := cdcCase{typ: typ,
			conn:  map[string]any{"server": fmt.Sprintf("%s:%d", host, port), "database": c.Database, "username": c.User, "password": c.Password},
			props: map[string]any{"tableName": "public.orders", "slotName": "fabric_orders"},
			sql: func(t *testing.T, stmt string) {
				if out, err := c.SQL(ctx, stmt); err != nil {
					t.Fatalf("%s: %v %s", stmt, err, out)
				}
			}}
		cc.sql(t, table)
		return cc
	}
	c, err := mariadb.Run(ctx, mariadb.ImageFromEnv())
	testcontainers.CleanupContainer(t, c)
	if err != nil {
		t.Fatal(err)
	}
	host, port, _ := c.HostPort(ctx)
	cc := cdcCase{typ: typ,
		conn:  map[string]any{"server": host, "database": c.Database, "username": c.User, "password": c.Password},
		props: map[string]any{"tableName": "orders", "serverId": 5400, "port": port},
		sql: func(t *testing.T, stmt string) {
			if out, err := c.SQL(ctx, stmt); err != nil {
				t.Fatalf("%s: %v %s", stmt, err, out)
			}
		}}
	cc.sql(t, table)
	return cc
}

// cdcRows reads the Lakehouse table's rows as (op, id) pairs in order.
func cdcRows(t *testing.T, dir string) []string {
	t.Helper()
	snap, err := delta.ReadTable(dir)
	if err != nil {
		return nil
	}
	var out []string
	for _, r := range snap.Rows {
		img, _ := r["after"].(map[string]any)
		if img == nil {
			// The first event (a snapshot row) has before: null, so the table
			// made from it has a string column before, holding the JSON.
			s, _ := r["before"].(string)
			_ = json.Unmarshal([]byte(s), &img)
		}
		out = append(out, fmt.Sprintf("%v:%v", r["op"], img["id"]))
	}
	return out
}

// TestCDCSourcesLandChangesInLakehouse: for each CDC source type, on its
// real server: the snapshot and then inserts, updates and deletes arrive
// in a Lakehouse table with their operations, in commit order; after the
// emulator restarts (same data directory and Kafka), changes made while it
// was down arrive once, without a second snapshot.
func TestCDCSourcesLandChangesInLakehouse(t *testing.T) {
	for _, typ := range []string{"PostgreSQLCDC", "MySQLCDC"} {
		t.Run(typ, func(t *testing.T) {
			srv := startCDCServer(t, typ)
			_, seeds := kafkaCluster(t)
			opts := []emulator.Option{emulator.WithKafka(seeds), emulator.WithDataDir(t.TempDir()), emulator.WithPartitions(1)}
			e := startEnv(t, opts...)
			ws := e.workspace("cdc")
			lh := e.must(201, e.call("POST", "/v1/workspaces/"+ws+"/lakehouses", map[string]any{"displayName": "cdc_lh"}))
			dir := filepath.Join(lh.Body["properties"].(map[string]any)["x-fabrictest-localTablesPath"].(string), "orders")
			srv.conn["workspaceId"] = ws
			e.must(201, e.call("PUT", "/v1/_emulator/connections/db-conn", srv.conn))
			srv.props["dataConnectionId"] = "db-conn"
			base, _ := deploy(t, e, ws, "orders", map[string]any{"type": typ, "properties": srv.props}, lh.str("id"), "orders")

			waitFor(t, 60*time.Second, "the snapshot rows", func() bool { return len(cdcRows(t, dir)) >= 2 })
			if st := sourceNode(t, e, base, "orders-src")["status"]; st != "Running" {
				t.Fatalf("source status %v", st)
			}
			srv.sql(t, "INSERT INTO orders VALUES (3, 'plum'); UPDATE orders SET item = 'green apple' WHERE id = 1; DELETE FROM orders WHERE id = 2")
			want := []string{"r:1", "r:2", "c:3", "u:1", "d:2"}
			waitFor(t, 30*time.Second, "the changes", func() bool { return len(cdcRows(t, dir)) >= len(want) })
			snap, _ := delta.ReadTable(dir)
			if got := cdcRows(t, dir); fmt.Sprint(got) != fmt.Sprint(want) {
				t.Fatalf("rows %v, want %v; columns %v; last %v", got, want, columnTypes(snap), snap.Rows[len(snap.Rows)-1])
			}
			src, _ := snap.Rows[3]["source"].(map[string]any)
			if after, _ := snap.Rows[3]["after"].(map[string]any); after["item"] != "green apple" || src["table"] != "orders" {
				t.Fatalf("update row %v", snap.Rows[3])
			}

			// Down: changes made meanwhile arrive once after the restart.
			e.srv.Close()
			srv.sql(t, "INSERT INTO orders VALUES (4, 'fig'); DELETE FROM orders WHERE id = 3")
			startEnv(t, opts...)
			want = append(want, "c:4", "d:3")
			waitFor(t, 60*time.Second, "the changes made while down", func() bool { return len(cdcRows(t, dir)) >= len(want) })
			time.Sleep(2 * time.Second) // nothing more may come
			if got := cdcRows(t, dir); fmt.Sprint(got) != fmt.Sprint(want) {
				t.Fatalf("rows after the restart %v, want %v", got, want)
			}
		})
	}
}

// TestCDCSourceNamedErrors: a wrong password, a missing table and a
// server without logical replication or binary log make the source Failed
// with the error's code in the topology.
func TestCDCSourceNamedErrors(t *testing.T) {
	for _, typ := range []string{"PostgreSQLCDC", "MySQLCDC"} {
		t.Run(typ, func(t *testing.T) {
			srv := startCDCServer(t, typ)
			e := startEnv(t, emulator.WithPartitions(1))
			ws := e.workspace("cdc-errors")
			good := map[string]any{"workspaceId": ws}
			for k, v := range srv.conn {
				good[k] = v
			}
			bad := map[string]any{}
			for k, v := range good {
				bad[k] = v
			}
			bad["password"] = "wrong"
			e.must(201, e.call("PUT", "/v1/_emulator/connections/good-conn", good))
			e.must(201, e.call("PUT", "/v1/_emulator/connections/bad-conn", bad))
			for name, tc := range map[string]struct {
				conn, table, code string
			}{
				"wrong password": {"bad-conn", "orders", "CDCAuthenticationFailed"},
				"missing table":  {"good-conn", "nope", "CDCTableNotFound"},
			} {
				props := map[string]any{"dataConnectionId": tc.conn, "tableName": tc.table}
				for k, v := range srv.props {
					if k != "tableName" {
						props[k] = v
					}
				}
				if typ == "PostgreSQLCDC" {
					props["slotName"] = "slot_" + tc.conn[:3]
				}
				slug := map[string]string{"wrong password": "pw", "missing table": "tbl"}[name]
				base, _ := deploy(t, e, ws, "err-"+slug, map[string]any{"type": typ, "properties": props}, "", "")
				var n map[string]any
				waitFor(t, 30*time.Second, name+" to fail the source", func() bool {
					n = sourceNode(t, e, base, "err-"+slug+"-src")
					return n["status"] == "Failed"
				})
				errObj, _ := n["error"].(map[string]any)
				if errObj["errorCode"] != tc.code {
					t.Fatalf("%s: node %v, want errorCode %s", name, n, tc.code)
				}
			}

			// A server without logical replication (PostgreSQL) or binary log (MySQL).
			off, code := startCDCServerOff(t, typ)
			off.conn["workspaceId"] = ws
			e.must(201, e.call("PUT", "/v1/_emulator/connections/off-conn", off.conn))
			props := map[string]any{"dataConnectionId": "off-conn"}
			for k, v := range off.props {
				props[k] = v
			}
			base, _ := deploy(t, e, ws, "err-off", map[string]any{"type": typ, "properties": props}, "", "")
			var n map[string]any
			waitFor(t, 30*time.Second, "the server without a change log to fail the source", func() bool {
				n = sourceNode(t, e, base, "err-off-src")
				return n["status"] == "Failed"
			})
			if errObj, _ := n["error"].(map[string]any); errObj["errorCode"] != code {
				t.Fatalf("node %v, want errorCode %s", n, code)
			}
		})
	}
}

// startCDCServerOff starts a server of typ that a CDC source cannot read
// (wal_level=replica; no binary log), with table orders, and the code the
// source fails with.
func startCDCServerOff(t *testing.T, typ string) (cdcCase, string) {
	t.Helper()
	ctx := context.Background()
	if typ == "PostgreSQLCDC" {
		c, err := postgres.Run(ctx, postgres.ImageFromEnv(), postgres.WithoutLogicalReplication())
		testcontainers.CleanupContainer(t, c)
		if err != nil {
			t.Fatal(err)
		}
		host, port, _ := c.HostPort(ctx)
		return cdcCase{typ: typ, conn: map[string]any{"server": fmt.Sprintf("%s:%d", host, port), "database": c.Database, "username": c.User, "password": c.Password},
			props: map[string]any{"tableName": "orders", "slotName": "off_slot"}}, "CDCLogicalReplicationDisabled"
	}
	c, err := mariadb.Run(ctx, mariadb.ImageFromEnv(), mariadb.WithoutBinlog())
	testcontainers.CleanupContainer(t, c)
	if err != nil {
		t.Fatal(err)
	}
	host, port, _ := c.HostPort(ctx)
	return cdcCase{typ: typ, conn: map[string]any{"server": fmt.Sprintf("%s:%d", host, port), "database": c.Database, "username": c.User, "password": c.Password},
		props: map[string]any{"tableName": "orders", "serverId": 99}}, "CDCBinlogDisabled"
}
