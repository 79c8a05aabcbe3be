package emulator_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fabrictest/fabrictest/emulator"
	"github.com/fabrictest/fabrictest/emulator/internal/store"
)

// corruptJournal leaves an undecodable pending batch in a destination's
// journal, so that its drain cannot read its resume points.
func corruptJournal(t *testing.T, dir, destID string) {
	t.Helper()
	st, err := store.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ctx := context.Background()
	j, err := st.GetJournal(ctx, destID)
	if err != nil {
		t.Fatal(err)
	}
	j.Seq++
	j.Pending = []byte(`[{"row": not json`)
	if err := st.PutJournal(ctx, j); err != nil {
		t.Fatal(err)
	}
}

// A data dir whose destinations cannot start still starts: those come up
// Failed with their error, the others deliver, and a failed one can be
// deleted or resumed.
func TestDataDirStartsWithFailedDestinations(t *testing.T) {
	dir := t.TempDir()
	e := startEnv(t, emulator.WithDataDir(dir))
	s := newStream(e)
	healthy, broken, doomed := bindLakehouse(t, s, "healthy"), bindLakehouse(t, s, "broken"), bindLakehouse(t, s, "doomed")
	e.must(200, e.call("POST", s.produce, `{"events":[{"value":{"n":1}}]}`))
	e.srv.Close()
	corruptJournal(t, dir, broken.dest)
	corruptJournal(t, dir, doomed.dest)

	e2 := startEnv(t, emulator.WithDataDir(dir))
	s.e = e2
	base := "/v1/workspaces/" + s.ws + "/eventstreams/" + s.id
	for _, l := range []lake{broken, doomed} {
		n := e2.must(200, e2.call("GET", base+"/destinations/"+l.dest, nil)).Body
		msg, _ := n["error"].(map[string]any)["errorMessage"].(string)
		if n["status"] != "Failed" || !strings.Contains(msg, "read pending batch") {
			t.Fatalf("destination %s after restart: status %v error %v; want Failed naming the pending batch", l.dest, n["status"], n["error"])
		}
	}
	if n := e2.must(200, e2.call("GET", base+"/destinations/"+healthy.dest, nil)).Body; n["status"] != "Running" {
		t.Fatalf("healthy destination: %v", n)
	}
	topo := e2.must(200, e2.call("GET", base+"/topology", nil)).Body
	failed := 0
	for _, n := range topo["destinations"].([]any) {
		if n.(map[string]any)["status"] == "Failed" {
			failed++
		}
	}
	if failed != 2 {
		t.Fatalf("topology shows %d failed destinations, want 2: %v", failed, topo["destinations"])
	}

	// A produce names a failed destination; the healthy one still delivers.
	r := e2.call("POST", s.produce, `{"events":[{"value":{"n":2}}]}`)
	e2.wantError(r, 502, "DestinationFailed")
	waitRows(t, healthy.dir, 2)

	// Resuming from where it stopped retries the start, which fails again.
	e2.wantError(e2.call("POST", base+"/destinations/"+broken.dest+"/resume", map[string]any{"startType": "WhenLastStopped"}), 502, "DestinationFailed")
	// Resuming from now drops the batch it cannot read and starts it.
	e2.must(200, e2.call("POST", base+"/destinations/"+broken.dest+"/resume", map[string]any{"startType": "Now"}))
	if n := e2.must(200, e2.call("GET", base+"/destinations/"+broken.dest, nil)).Body; n["status"] != "Running" {
		t.Fatalf("resumed destination: %v", n)
	}
	e2.must(200, e2.call("DELETE", base+"/destinations/"+doomed.dest, nil))
	e2.wantError(e2.call("GET", base+"/destinations/"+doomed.dest, nil), 404, "DestinationNotFound")
	e2.must(200, e2.call("POST", s.produce, `{"events":[{"value":{"n":3}}]}`))
	waitRows(t, healthy.dir, 3)
	waitRows(t, broken.dir, 2) // its first row, then the one produced after the resume
}

// A first batch made only of rows the table cannot take (issue 13, finding
// 3) left in the topic across a restart: the server starts, the
// destination runs (the rows were parked), a later row creates the table,
// and the destination can be deleted, after which produces succeed.
func TestDataDirStartsWithRejectedFirstBatch(t *testing.T) {
	dir := t.TempDir()
	e := startEnv(t, emulator.WithDataDir(dir))
	s := newStream(e)
	l := bindLakehouse(t, s, "wedged")
	r := e.call("POST", s.produce, `{"events":[{"value":{"":1," ":2}}]}`)
	t.Logf("first produce: %d %s", r.Status, r.Raw)
	e.srv.Close()

	e2 := startEnv(t, emulator.WithDataDir(dir))
	s.e = e2
	base := "/v1/workspaces/" + s.ws + "/eventstreams/" + s.id + "/destinations/" + l.dest
	if n := e2.must(200, e2.call("GET", base, nil)).Body; n["status"] != "Running" {
		t.Fatalf("destination after restart: %v", n)
	}
	e2.must(200, e2.call("POST", s.produce, `{"events":[{"value":{"n":1}}]}`))
	waitRows(t, l.dir, 1)
	e2.must(200, e2.call("DELETE", base, nil))
	e2.must(200, e2.call("POST", s.produce, `{"events":[{"value":{"n":1}}]}`))
}

// A destination whose table cannot be opened after a restart is Failed
// with a message that names the table's place in OneLake, never the
// server's directories (issue 13, finding 8).
func TestFailedDestinationHidesServerPaths(t *testing.T) {
	dir := t.TempDir()
	e := startEnv(t, emulator.WithDataDir(dir))
	s := newStream(e)
	l := bindLakehouse(t, s, "unreadable")
	e.must(200, e.call("POST", s.produce, `{"events":[{"value":{"n":1}}]}`))
	e.srv.Close()
	commit := filepath.Join(l.dir, "_delta_log", "00000000000000000000.json")
	if err := os.WriteFile(commit, []byte("not a delta log\n"), 0o600); err != nil {
		t.Fatal(err)
	}

	e2 := startEnv(t, emulator.WithDataDir(dir))
	base := "/v1/workspaces/" + s.ws + "/eventstreams/" + s.id
	dest := e2.must(200, e2.call("GET", base+"/destinations/"+l.dest, nil)).Raw
	topo := e2.must(200, e2.call("GET", base+"/topology", nil)).Raw
	for name, body := range map[string]string{"destination": string(dest), "topology": string(topo)} {
		if !strings.Contains(body, "Failed") {
			t.Fatalf("%s after restart does not show the destination Failed: %s", name, body)
		}
		if strings.Contains(body, dir) {
			t.Fatalf("%s names the server's data dir %s: %s", name, dir, body)
		}
	}
}
