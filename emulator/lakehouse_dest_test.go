package emulator_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fabrictest/fabrictest/emulator"
	"github.com/fabrictest/fabrictest/emulator/delta"
	"github.com/fabrictest/fabrictest/fabrictest"
	"github.com/fabrictest/fabrictest/internal/testclients"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
)

// lake is a Lakehouse bound to a stream's table.
type lake struct {
	s        stream
	id, dest string
	dir      string // the table's directory
}

func bindLakehouse(t testing.TB, s stream, table string) lake {
	t.Helper()
	e := s.e
	lh := e.must(201, e.call("POST", "/v1/workspaces/"+s.ws+"/lakehouses", map[string]any{"displayName": "lh_" + table}))
	tables := lh.Body["properties"].(map[string]any)["x-fabrictest-localTablesPath"].(string)
	d := e.must(201, e.call("POST", "/v1/workspaces/"+s.ws+"/eventstreams/"+s.id+"/destinations",
		map[string]any{"type": "Lakehouse", "itemId": lh.str("id"), "table": table}))
	return lake{s: s, id: lh.str("id"), dest: d.str("id"), dir: filepath.Join(tables, table)}
}

// readTable reads a table with the Go reader and checks that delta-rs, a
// reader nobody here wrote, sees the same version, row count and columns.
func readTable(t *testing.T, dir string) *delta.Snapshot {
	t.Helper()
	snap, err := delta.ReadTable(dir)
	if err != nil {
		t.Fatalf("read delta table %s: %v", dir, err)
	}
	cols := make([]string, len(snap.Schema.Fields))
	for i, f := range snap.Schema.Fields {
		cols[i] = f.Name
	}
	rs, err := testclients.DeltaRS(t.Context(), dir)
	if err != nil {
		t.Fatalf("delta-rs: %v", err)
	}
	if rs.Version != snap.Version || len(rs.Rows) != len(snap.Rows) || strings.Join(rs.Columns, ",") != strings.Join(cols, ",") {
		t.Fatalf("delta-rs sees version %d, %d rows, columns %v; the Go reader version %d, %d rows, columns %v",
			rs.Version, len(rs.Rows), rs.Columns, snap.Version, len(snap.Rows), cols)
	}
	return snap
}

func TestLakehouseBindChecks(t *testing.T) {
	e := startEnv(t)
	s := newStream(e)
	lh := e.must(201, e.call("POST", "/v1/workspaces/"+s.ws+"/lakehouses", map[string]any{"displayName": "lh"})).str("id")
	nb := e.must(201, e.call("POST", "/v1/workspaces/"+s.ws+"/items", map[string]any{"displayName": "nb", "type": "Notebook"})).str("id")
	dest := "/v1/workspaces/" + s.ws + "/eventstreams/" + s.id + "/destinations"
	bind := func(body map[string]any) resp { return e.call("POST", dest, body) }

	r := bind(map[string]any{"type": "Lakehouse", "itemId": nb, "table": "t"})
	e.wantError(r, 400, "InvalidInput")
	if !strings.Contains(r.str("message"), "Notebook") {
		t.Fatalf("type mismatch not named: %s", r.str("message"))
	}
	e.wantError(bind(map[string]any{"type": "Lakehouse", "itemId": s.ws, "table": "t"}), 404, "ItemNotFound")
	e.wantError(bind(map[string]any{"type": "Warehouse", "itemId": lh, "table": "t"}), 400, "InvalidInput")
	for _, name := range []string{"", "../escape", "a/b", "..", "has space", "12345", "naïve", strings.Repeat("x", 257), "t;drop"} {
		e.wantError(bind(map[string]any{"type": "Lakehouse", "itemId": lh, "table": name}), 400, "InvalidInput")
	}
	first := e.must(201, bind(map[string]any{"type": "Lakehouse", "itemId": lh, "table": "orders"}))
	again := e.must(200, bind(map[string]any{"type": "lakehouse", "itemId": lh, "table": "orders"}))
	if first.str("id") != again.str("id") {
		t.Fatalf("re-bind made a second destination: %s vs %s", first.str("id"), again.str("id"))
	}
	if n := len(e.must(200, e.call("GET", dest, nil)).Body["value"].([]any)); n != 1 {
		t.Fatalf("%d destinations after an idempotent re-bind", n)
	}

	// A target in another workspace needs Contributor there.
	const bob = "b0b00000-0000-0000-0000-000000000001"
	bobTok, _ := e.srv.Token(bob)
	other := e.workspace("other")
	otherLH := e.must(201, e.call("POST", "/v1/workspaces/"+other+"/lakehouses", map[string]any{"displayName": "far"})).str("id")
	e.must(201, e.call("POST", "/v1/workspaces/"+s.ws+"/roleAssignments", map[string]any{"principal": map[string]any{"id": bob, "type": "User"}, "role": "Contributor"}))
	e.wantError(e.callAs(bobTok, "POST", dest, map[string]any{"type": "Lakehouse", "itemId": otherLH, "workspaceId": other, "table": "t"}), 403, "InsufficientPrivileges")
	e.wantError(bind(map[string]any{"type": "Lakehouse", "itemId": otherLH, "table": "t"}), 404, "ItemNotFound") // not in this workspace
	e.must(201, bind(map[string]any{"type": "Lakehouse", "itemId": otherLH, "workspaceId": other, "table": "t"}))
}

func TestLakehouseDelivery(t *testing.T) {
	e := startEnv(t)
	s := newStream(e)
	l := bindLakehouse(t, s, "orders")

	// One event: one commit, the row as sent.
	e.must(200, e.call("POST", s.produce, `{"events":[{"value":{"id":1,"item":"pen","price":2.5,"paid":true,"at":"2026-11-29T10:00:00Z"}}]}`))
	snap := readTable(t, l.dir)
	if len(snap.Rows) != 1 || fmt.Sprint(snap.Rows[0]["item"]) != "pen" {
		t.Fatalf("after one event: %d rows %v", len(snap.Rows), snap.Rows)
	}

	// 10,000 events in one produce.
	events := make([]any, 10_000)
	for i := range events {
		events[i] = map[string]any{"key": fmt.Sprint(i % 13), "value": map[string]any{"id": i + 2, "item": "bulk"}}
	}
	e.must(200, e.call("POST", s.produce, map[string]any{"events": events}))
	if n := len(readTable(t, l.dir).Rows); n != 10_001 {
		t.Fatalf("%d rows after 10,000 more events, want 10001", n)
	}

	// The tables route lists it.
	tables := e.must(200, e.call("GET", "/v1/workspaces/"+s.ws+"/lakehouses/"+l.id+"/tables", nil)).Body["data"].([]any)
	if len(tables) != 1 || tables[0].(map[string]any)["name"] != "orders" || tables[0].(map[string]any)["format"] != "Delta" {
		t.Fatalf("tables: %v", tables)
	}

	// Unbinding stops delivery.
	e.must(200, e.call("DELETE", "/v1/workspaces/"+s.ws+"/eventstreams/"+s.id+"/destinations/"+l.dest, nil))
	e.must(200, e.call("POST", s.produce, `{"events":[{"value":{"id":-1}}]}`))
	if n := len(readTable(t, l.dir).Rows); n != 10_001 {
		t.Fatalf("%d rows after unbind, want 10001", n)
	}
}

func TestLakehouseConcurrentProducers(t *testing.T) {
	e := startEnv(t)
	s := newStream(e)
	l := bindLakehouse(t, s, "clicks")
	var wg sync.WaitGroup
	for p := range 50 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			events := make([]any, 20)
			for i := range events {
				events[i] = map[string]any{"value": map[string]any{"producer": p, "n": i}}
			}
			e.must(200, e.call("POST", s.produce, map[string]any{"events": events}))
		}()
	}
	wg.Wait()
	snap := readTable(t, l.dir)
	if len(snap.Rows) != 1000 {
		t.Fatalf("%d rows from 50×20 events", len(snap.Rows))
	}
	seen := map[string]bool{}
	for _, r := range snap.Rows {
		seen[fmt.Sprint(r["producer"], "/", r["n"])] = true
	}
	if len(seen) != 1000 {
		t.Fatalf("%d distinct rows", len(seen))
	}
	versions := make([]int64, len(snap.Commits))
	for i, c := range snap.Commits {
		versions[i] = c.Version
	}
	sort.Slice(versions, func(i, j int) bool { return versions[i] < versions[j] })
	for i, v := range versions {
		if v != int64(i) {
			t.Fatalf("versions not contiguous: %v", versions)
		}
	}
}

// TestLakehouseKafkaProducerAndExactlyOnce feeds the table from a plain
// Kafka client, then loses the drain's offset commits across a restart: the
// Delta txn actions keep every event exactly once.
func TestLakehouseKafkaProducerAndExactlyOnce(t *testing.T) {
	c, seeds := kafkaCluster(t)
	dir := t.TempDir()
	e := startEnv(t, emulator.WithKafka(seeds), emulator.WithDataDir(dir))
	s := newStream(e)
	l := bindLakehouse(t, s, "sensor")
	topic := s.id + "." + s.ds

	cl, err := kgo.NewClient(kgo.SeedBrokers(c.ListenAddrs()...), kgo.DefaultProduceTopic(topic))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	var recs []*kgo.Record
	for i := range 100 {
		recs = append(recs, &kgo.Record{Key: []byte(fmt.Sprint(i)), Value: fmt.Appendf(nil, `{"reading":%d}`, i)})
	}
	if err := cl.ProduceSync(context.Background(), recs...).FirstErr(); err != nil {
		t.Fatal(err)
	}
	waitRows(t, l.dir, 100)

	// "Crash" before the offset commit: rewind the destination's group to 0.
	e.srv.Close()
	adm := kadm.NewClient(cl)
	group := "fabric-emulator-destination-" + l.dest
	rewind := kadm.Offsets{}
	for p := range int32(4) {
		rewind.AddOffset(topic, p, 0, -1)
	}
	if _, err := adm.CommitOffsets(context.Background(), group, rewind); err != nil {
		t.Fatal(err)
	}
	e2 := startEnv(t, emulator.WithKafka(seeds), emulator.WithDataDir(dir))
	s.e = e2
	e2.must(200, e2.call("POST", s.produce, `{"events":[{"value":{"reading":100}}]}`))
	snap := readTable(t, l.dir)
	seen := map[string]int{}
	for _, r := range snap.Rows {
		seen[fmt.Sprint(r["reading"])]++
	}
	if len(snap.Rows) != 101 || len(seen) != 101 {
		b, _ := json.Marshal(seen)
		t.Fatalf("%d rows, %d distinct after a replay; want 101 each: %s", len(snap.Rows), len(seen), b)
	}
}

// waitRows waits for a table to reach n rows (for producers that are not
// the HTTP route, which has no read-your-writes wait).
func waitRows(t *testing.T, dir string, n int) {
	t.Helper()
	for i := 0; i < 500; i++ {
		if snap, err := delta.ReadTable(dir); err == nil && len(snap.Rows) >= n {
			if len(snap.Rows) != n {
				t.Fatalf("%d rows, want %d", len(snap.Rows), n)
			}
			return
		}
		sleep()
	}
	t.Fatalf("table %s never reached %d rows", dir, n)
}

func readTableMaybe(dir string) (*delta.Snapshot, error) { return delta.ReadTable(dir) }

// TestLakehouseSchemaEnforcementAndConflict follows fabric-docs "Add a
// lakehouse destination to an eventstream": a field the first record did
// not have is not written (schema evolution is an emulator extension of
// the binding, tested in internal/runtime), and a value its column cannot
// take is parked with its reason and counted.
func TestLakehouseSchemaEnforcementAndConflict(t *testing.T) {
	e := startEnv(t)
	s := newStream(e)
	l := bindLakehouse(t, s, "enforced")
	e.must(200, e.call("POST", s.produce, `{"events":[{"value":{"id":1,"qty":2}}]}`))
	e.must(200, e.call("POST", s.produce, `{"events":[{"value":{"id":2,"qty":3,"note":"not a column"}}]}`))
	e.must(200, e.call("POST", s.produce, `{"events":[{"value":{"id":3,"qty":"three"}},{"value":{"id":4,"qty":4}}]}`))
	snap := readTable(t, l.dir)
	if got := strings.Join(snap.Schema.Names(), ","); got != "id,qty" {
		t.Fatalf("columns %s, want id,qty", got)
	}
	ids := []string{}
	for _, r := range snap.Rows {
		ids = append(ids, fmt.Sprint(r["id"], ":", r["qty"]))
	}
	sort.Strings(ids)
	if strings.Join(ids, ",") != "1:2,2:3,4:4" {
		t.Fatalf("rows %v", ids)
	}
	// The conflicting row is parked with its reason, and counted.
	d := e.must(200, e.call("GET", "/v1/workspaces/"+s.ws+"/eventstreams/"+s.id+"/destinations/"+l.dest, nil))
	delivery := decodeAs[fabrictest.Destination](t, d).Delivery
	if delivery.RejectedRows != 1 || !strings.Contains(delivery.LastRejection, `"qty"`) {
		t.Fatalf("destination status: %s", d.Raw)
	}
	parked, err := os.ReadFile(filepath.Join(filepath.Dir(filepath.Dir(l.dir)), "Files", "_rejected", "enforced", l.dest+".jsonl"))
	if err != nil || !strings.Contains(string(parked), `"three"`) || !strings.Contains(string(parked), "long column (BigInt) cannot take") {
		t.Fatalf("parked rows: %s (%v)", parked, err)
	}
}

// TestLakehouseBrokerOutage stops the broker between two produces and
// starts it again on the same port and log: the drain picks up where it
// was, and nothing is lost or doubled.
func TestLakehouseBrokerOutage(t *testing.T) {
	logDir := t.TempDir()
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.DataDir(logDir))
	if err != nil {
		t.Fatal(err)
	}
	addr := c.ListenAddrs()[0]
	var port int
	fmt.Sscanf(addr[strings.LastIndex(addr, ":")+1:], "%d", &port)
	e := startEnv(t, emulator.WithKafka(addr), emulator.WithProduceTimeout(3*time.Second))
	s := newStream(e)
	l := bindLakehouse(t, s, "outage")
	e.must(200, e.call("POST", s.produce, `{"events":[{"value":{"n":1}},{"value":{"n":2}}]}`))

	c.Close() // the outage
	r := e.call("POST", s.produce, `{"events":[{"value":{"n":3}}]}`)
	if r.Status != 502 {
		t.Fatalf("produce during the outage answered %d: %s", r.Status, r.Raw)
	}
	destPath := "/v1/workspaces/" + s.ws + "/eventstreams/" + s.id + "/destinations/" + l.dest
	status := func() (string, string) {
		d := e.must(200, e.call("GET", destPath, nil))
		lastErr, _ := d.Body["delivery"].(map[string]any)["lastKafkaError"].(string)
		return d.str("status"), lastErr
	}
	waitFor(t, 15*time.Second, "the destination showing the outage", func() bool { st, msg := status(); return st == "Warning" && msg != "" })
	c2, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.DataDir(logDir), kfake.Ports(port))
	if err != nil {
		t.Fatal(err)
	}
	defer c2.Close()
	e.must(200, e.call("POST", s.produce, `{"events":[{"value":{"n":4}},{"value":{"n":5}}]}`))
	waitFor(t, 15*time.Second, "the destination Running again", func() bool { st, _ := status(); return st == "Running" })
	snap := readTable(t, l.dir)
	seen := map[string]int{}
	for _, r := range snap.Rows {
		seen[fmt.Sprint(r["n"])]++
	}
	for _, n := range []string{"1", "2", "4", "5"} {
		if seen[n] != 1 {
			t.Fatalf("rows after the outage: %v", seen)
		}
	}
	if seen["3"] > 1 {
		t.Fatalf("event 3 doubled: %v", seen)
	}
}
