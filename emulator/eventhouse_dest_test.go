package emulator_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/fabrictest/fabrictest/emulator"
	"github.com/fabrictest/fabrictest/emulator/eventhouse"
	"github.com/fabrictest/fabrictest/kustofake"
)

// kustoRows reads a table back through azure-kusto-go.
func kustoRows(t *testing.T, url, db, table string) []map[string]any {
	t.Helper()
	c, err := eventhouse.New(url)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	rs, err := c.Rows(context.Background(), db, table)
	if err != nil {
		t.Fatalf("read %s.%s: %v", db, table, err)
	}
	return rs
}

func eventhouseStream(t *testing.T, e *testEnv) (s stream, eh, db string) {
	s = newStream(e)
	r := e.must(201, e.call("POST", "/v1/workspaces/"+s.ws+"/eventhouses", map[string]any{"displayName": "telemetry"}))
	return s, r.str("id"), r.Body["properties"].(map[string]any)["databasesItemIds"].([]any)[0].(string)
}

func TestEventhouseDestination(t *testing.T) {
	k := kustofake.Start(t)
	e := startEnv(t, emulator.WithKQLURL(k.URL()))
	s, eh, _ := eventhouseStream(t, e)
	dest := "/v1/workspaces/" + s.ws + "/eventstreams/" + s.id + "/destinations"
	e.wantError(e.call("POST", dest, map[string]any{"type": "Eventhouse", "itemId": eh, "table": "t", "database": "nope"}), 404, "ItemNotFound")
	e.wantError(e.call("POST", dest, map[string]any{"type": "Eventhouse", "itemId": eh, "table": "bad'name"}), 400, "InvalidInput")
	d := e.must(201, e.call("POST", dest, map[string]any{"type": "Eventhouse", "itemId": eh, "table": "kind"}))
	if d.str("database") != "telemetry" {
		t.Fatalf("default database: %s", d.Raw)
	}
	e.must(200, e.call("POST", s.produce, map[string]any{"events": []any{
		map[string]any{"value": map[string]any{"kind": "a,b", "n": 1, "note": "say \"hi\"\nbye", "u": "ünïcødé ✓"}},
		map[string]any{"value": map[string]any{"kind": nil, "n": nil, "ok": true}},
		map[string]any{"value": map[string]any{"kind": "late", "n": 3, "extra": 2.5}},
	}}))
	got := kustoRows(t, k.URL(), "telemetry", "kind")
	if len(got) != 3 {
		t.Fatalf("%d rows", len(got))
	}
	byN := map[string]map[string]any{}
	for _, r := range got {
		byN[fmt.Sprint(r["n"])] = r
	}
	if r := byN["1"]; r["kind"] != "a,b" || r["note"] != "say \"hi\"\nbye" || r["u"] != "ünïcødé ✓" {
		t.Fatalf("row 1: %v", r)
	}
	if r := byN["3"]; fmt.Sprint(r["extra"]) != "2.5" || r["kind"] != "late" {
		t.Fatalf("row 3: %v", r)
	}

	// 10,000 rows in one produce.
	events := make([]any, 10_000)
	for i := range events {
		events[i] = map[string]any{"value": map[string]any{"kind": "bulk", "n": i + 10}}
	}
	e.must(200, e.call("POST", s.produce, map[string]any{"events": events}))
	if n := len(kustoRows(t, k.URL(), "telemetry", "kind")); n != 10_003 {
		t.Fatalf("%d rows after 10,000 more", n)
	}
}

func TestEventhouseEngineDownThenBack(t *testing.T) {
	k := kustofake.Start(t)
	e := startEnv(t, emulator.WithKQLURL(k.URL()))
	s, eh, _ := eventhouseStream(t, e)
	e.must(201, e.call("POST", "/v1/workspaces/"+s.ws+"/eventstreams/"+s.id+"/destinations", map[string]any{"type": "Eventhouse", "itemId": eh, "table": "T"}))
	e.must(200, e.call("POST", s.produce, `{"events":[{"value":{"n":1}}]}`))
	k.Down()
	r := e.call("POST", s.produce, `{"events":[{"value":{"n":2}},{"value":{"n":3}}]}`)
	e.wantError(r, 502, "DestinationFailed")
	if !strings.Contains(r.str("message"), "Eventhouse") {
		t.Fatalf("502 does not name the destination: %s", r.str("message"))
	}
	if err := k.Up(); err != nil {
		t.Fatal(err)
	}
	e.must(200, e.call("POST", s.produce, `{"events":[{"value":{"n":4}}]}`))
	got := kustoRows(t, k.URL(), "telemetry", "T")
	seen := map[string]int{}
	for _, r := range got {
		seen[fmt.Sprint(r["n"])]++
	}
	if len(got) != 4 || len(seen) != 4 {
		t.Fatalf("rows after the outage: %v", seen)
	}
}

func TestEventhouseWithoutKQLURL(t *testing.T) {
	e := startEnv(t)
	s, eh, _ := eventhouseStream(t, e)
	e.must(201, e.call("POST", "/v1/workspaces/"+s.ws+"/eventstreams/"+s.id+"/destinations", map[string]any{"type": "Eventhouse", "itemId": eh, "table": "T"}))
	r := e.call("POST", s.produce, `{"events":[{"value":{"n":1}}]}`)
	e.wantError(r, 502, "DestinationFailed")
	if !strings.Contains(r.str("message"), "--kql-url") {
		t.Fatalf("502 does not name --kql-url: %s", r.str("message"))
	}
}

func TestEventhouseRebindOtherDatabase(t *testing.T) {
	k := kustofake.Start(t)
	e := startEnv(t, emulator.WithKQLURL(k.URL()))
	s, eh, _ := eventhouseStream(t, e)
	e.must(201, e.call("POST", "/v1/workspaces/"+s.ws+"/kqlDatabases", map[string]any{"displayName": "archive",
		"creationPayload": map[string]any{"databaseType": "ReadWrite", "parentEventhouseItemId": eh}}))
	dest := "/v1/workspaces/" + s.ws + "/eventstreams/" + s.id + "/destinations"
	first := e.must(201, e.call("POST", dest, map[string]any{"type": "Eventhouse", "itemId": eh, "table": "T"}))
	e.must(200, e.call("POST", s.produce, `{"events":[{"value":{"n":1}}]}`))
	again := e.must(200, e.call("POST", dest, map[string]any{"type": "Eventhouse", "itemId": eh, "table": "T", "database": "archive"}))
	if again.str("id") != first.str("id") || again.str("database") != "archive" {
		t.Fatalf("re-bind: %s", again.Raw)
	}
	e.must(200, e.call("POST", s.produce, `{"events":[{"value":{"n":2}}]}`))
	if a, b := len(kustoRows(t, k.URL(), "telemetry", "T")), len(kustoRows(t, k.URL(), "archive", "T")); a != 1 || b != 1 {
		t.Fatalf("telemetry has %d rows, archive %d; want 1 and 1", a, b)
	}
}
