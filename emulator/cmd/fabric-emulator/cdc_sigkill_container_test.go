//go:build container

package main

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/testcontainers/testcontainers-go"

	"github.com/fabrictest/fabrictest/emulator/delta"
	"github.com/fabrictest/fabrictest/fixtures/postgres"
)

// cdcKillRounds is how many times the process is SIGKILLed while rows are
// inserted.
const cdcKillRounds = 3

// TestCDCSourceLosesNothingAcrossSIGKILL: a PostgreSQLCDC source feeds a
// Lakehouse table while a writer inserts rows, each in its own
// transaction, and the emulator process is SIGKILLed and restarted on its
// data directory cdcKillRounds times. At the end every inserted row is in
// the table (at least once: a row may come twice when the kill fell
// between its produce and the saved position, never zero times).
func TestCDCSourceLosesNothingAcrossSIGKILL(t *testing.T) {
	ctx := context.Background()
	pg, err := postgres.Run(ctx, postgres.ImageFromEnv())
	testcontainers.CleanupContainer(t, pg)
	if err != nil {
		t.Fatal(err)
	}
	if out, err := pg.SQL(ctx, "CREATE TABLE events (id int PRIMARY KEY, note text)"); err != nil {
		t.Fatalf("create table: %v %s", err, out)
	}
	host, port, _ := pg.HostPort(ctx)
	url, _ := pg.URL(ctx)

	bin, dataDir := buildBinary(t), t.TempDir()
	logPath := filepath.Join(t.TempDir(), "emulator.log")
	p := startProc(t, bin, dataDir, logPath)
	c := newClient(t, p.url)
	ws := c.must(t, 201, "POST", "/v1/workspaces", map[string]any{"displayName": "cdc-sigkill"})["id"].(string)
	c.must(t, 201, "PUT", "/v1/_emulator/connections/pg", map[string]any{"workspaceId": ws,
		"server": fmt.Sprintf("%s:%d", host, port), "database": pg.Database, "username": pg.User, "password": pg.Password})
	lh := c.must(t, 201, "POST", "/v1/workspaces/"+ws+"/lakehouses", map[string]any{"displayName": "cdc"})
	tableDir := filepath.Join(lh["properties"].(map[string]any)["x-fabrictest-localTablesPath"].(string), "events")
	topo := map[string]any{
		"sources": []any{map[string]any{"name": "pg-src", "type": "PostgreSQLCDC", "properties": map[string]any{
			"dataConnectionId": "pg", "tableName": "public.events", "slotName": "sigkill_slot"}}},
		"streams": []any{map[string]any{"name": "s", "type": "DefaultStream", "properties": map[string]any{},
			"inputNodes": []any{map[string]any{"name": "pg-src"}}}},
		"operators": []any{},
		"destinations": []any{map[string]any{"name": "lh", "type": "Lakehouse", "properties": map[string]any{
			"workspaceId": ws, "itemId": lh["id"], "deltaTable": "events", "minimumRows": 1},
			"inputNodes": []any{map[string]any{"name": "s"}}}},
	}
	raw, _ := json.Marshal(topo)
	c.must(t, 201, "POST", "/v1/workspaces/"+ws+"/eventstreams", map[string]any{"displayName": "cdc", "definition": map[string]any{
		"parts": []any{map[string]any{"path": "eventstream.json", "payload": base64.StdEncoding.EncodeToString(raw), "payloadType": "InlineBase64"}}}})
	time.Sleep(2 * time.Second) // the slot exists before the first insert

	var inserted atomic.Int64
	wctx, stopWriter := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		conn, err := pgconn.Connect(ctx, url)
		if err != nil {
			t.Errorf("writer: %v", err)
			return
		}
		defer conn.Close(ctx)
		for id := 1; wctx.Err() == nil; id++ {
			if _, err := conn.Exec(ctx, fmt.Sprintf("INSERT INTO events VALUES (%d, 'n%d')", id, id)).ReadAll(); err != nil {
				t.Errorf("insert %d: %v", id, err)
				return
			}
			inserted.Store(int64(id))
			time.Sleep(10 * time.Millisecond)
		}
	}()
	for round := 0; round < cdcKillRounds; round++ {
		time.Sleep(1500 * time.Millisecond)
		p.kill(t)
		time.Sleep(300 * time.Millisecond)
		p = startProc(t, bin, dataDir, logPath)
	}
	time.Sleep(time.Second)
	stopWriter()
	wg.Wait()
	n := int(inserted.Load())
	if n < 100 {
		t.Fatalf("the writer inserted only %d rows", n)
	}

	var seen map[int]int
	deadline := time.Now().Add(60 * time.Second)
	for {
		seen = map[int]int{}
		if snap, err := delta.ReadTable(tableDir); err == nil {
			for _, r := range snap.Rows {
				if after, ok := r["after"].(map[string]any); ok {
					if id, ok := after["id"].(int64); ok {
						seen[int(id)]++
					}
				}
			}
		}
		if len(seen) >= n || time.Now().After(deadline) {
			break
		}
		time.Sleep(250 * time.Millisecond)
	}
	p.stop(t, logPath)
	var missing []int
	dups := 0
	for id := 1; id <= n; id++ {
		if seen[id] == 0 {
			missing = append(missing, id)
		}
		if seen[id] > 1 {
			dups += seen[id] - 1
		}
	}
	t.Logf("%d rows inserted across %d SIGKILLs; %d delivered twice", n, cdcKillRounds, dups)
	if len(missing) > 0 {
		t.Fatalf("%d of %d inserted rows are missing from the Lakehouse table (first %v); log:\n%s", len(missing), n, missing[:min(10, len(missing))], tail(logPath))
	}
}
