package emulator_test

import (
	"bytes"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fabrictest/fabrictest/emulator"
)

// connectionSecret is the SASL password the tests register; it must never
// be answered, logged, or readable by anyone but the data dir's owner.
const connectionSecret = "s3cret-Pa55word-7f1e2d"

func saslConnection(ws, bootstrap string) map[string]any {
	return map[string]any{"workspaceId": ws, "bootstrapServers": bootstrap, "securityProtocol": "SASL_PLAINTEXT",
		"saslMechanism": "PLAIN", "username": "team-a", "password": connectionSecret}
}

// principalToken mints a token for principal, given role in ws ("" for none).
func (e *testEnv) principalToken(ws, principal, role string) string {
	e.t.Helper()
	tok, err := e.srv.Token(principal)
	if err != nil {
		e.t.Fatal(err)
	}
	if role != "" {
		e.must(201, e.call("POST", "/v1/workspaces/"+ws+"/roleAssignments",
			map[string]any{"principal": map[string]any{"id": principal, "type": "User"}, "role": role}))
	}
	return tok
}

// TestDataConnectionAuthorisation: a connection belongs to the workspace
// that registered it; a stranger (valid token, no role) and a Viewer can
// neither replace nor delete it, the stranger cannot even see it, and the
// workspace's Contributor manages it.
func TestDataConnectionAuthorisation(t *testing.T) {
	e := startEnv(t)
	ws := e.workspace("team-a")
	const path = "/v1/_emulator/connections/team-a-kafka"
	e.must(201, e.call("PUT", path, saslConnection(ws, "kafka-a:9092")))

	stranger := e.principalToken(ws, "0badc0de-0000-4000-8000-000000000001", "")
	viewer := e.principalToken(ws, "0badc0de-0000-4000-8000-000000000002", "Viewer")
	contributor := e.principalToken(ws, "0badc0de-0000-4000-8000-000000000003", "Contributor")
	hijack := map[string]any{"workspaceId": ws, "bootstrapServers": "evil:9092"}

	// The stranger sees nothing, and can change nothing.
	e.wantError(e.callAs(stranger, "GET", path, nil), 404, "ConnectionNotFound")
	e.wantError(e.callAs(stranger, "PUT", path, hijack), 403, "InsufficientPrivileges")
	e.wantError(e.callAs(stranger, "PUT", path, map[string]any{"bootstrapServers": "evil:9092"}), 403, "InsufficientPrivileges")
	e.wantError(e.callAs(stranger, "DELETE", path, nil), 404, "ConnectionNotFound")
	own := e.must(201, e.callAs(stranger, "POST", "/v1/workspaces", map[string]any{"displayName": "strangers"})).str("id")
	e.wantError(e.callAs(stranger, "PUT", path, map[string]any{"workspaceId": own, "bootstrapServers": "evil:9092"}), 409, "ConnectionInOtherWorkspace")
	if l := e.must(200, e.callAs(stranger, "GET", "/v1/_emulator/connections", nil)); len(l.Body["value"].([]any)) != 0 {
		t.Fatalf("the stranger lists %s", l.Raw)
	}

	// The Viewer reads the non-secret fields, and can change nothing.
	got := e.must(200, e.callAs(viewer, "GET", path, nil))
	if got.str("bootstrapServers") != "kafka-a:9092" || got.str("workspaceId") != ws || got.Body["username"] != nil || got.Body["password"] != nil {
		t.Fatalf("viewer reads %s", got.Raw)
	}
	e.wantError(e.callAs(viewer, "PUT", path, hijack), 403, "InsufficientPrivileges")
	e.wantError(e.callAs(viewer, "DELETE", path, nil), 403, "InsufficientPrivileges")
	if l := e.must(200, e.callAs(viewer, "GET", "/v1/_emulator/connections", nil)); len(l.Body["value"].([]any)) != 1 {
		t.Fatalf("the viewer lists %s", l.Raw)
	}

	// Nothing the two tried changed the connection.
	if got := e.must(200, e.call("GET", path, nil)); got.str("bootstrapServers") != "kafka-a:9092" || got.str("username") != "team-a" || got.Body["hasPassword"] != true {
		t.Fatalf("after the refused calls: %s", got.Raw)
	}

	// A connection cannot move to another workspace, even by its manager.
	other := e.workspace("team-b")
	e.wantError(e.call("PUT", path, map[string]any{"workspaceId": other, "bootstrapServers": "kafka-a:9092"}), 409, "ConnectionInOtherWorkspace")
	// Registration names its workspace.
	e.wantError(e.call("PUT", "/v1/_emulator/connections/nows", map[string]any{"bootstrapServers": "h:1"}), 400, "InvalidInput")

	// The Contributor replaces, reads and deletes it.
	e.must(200, e.callAs(contributor, "PUT", path, map[string]any{"bootstrapServers": "kafka-a2:9092"}))
	if got := e.must(200, e.callAs(contributor, "GET", path, nil)); got.str("bootstrapServers") != "kafka-a2:9092" || got.str("workspaceId") != ws {
		t.Fatalf("contributor reads %s", got.Raw)
	}
	e.must(200, e.callAs(contributor, "DELETE", path, nil))
	e.wantError(e.call("GET", path, nil), 404, "ConnectionNotFound")
}

// TestKafkaSourceNamesConnectionOfItsWorkspace: a definition may not use
// another workspace's connection (it would read that team's cluster with
// its credentials).
func TestKafkaSourceNamesConnectionOfItsWorkspace(t *testing.T) {
	e := startEnv(t, emulator.WithPartitions(1))
	a, b := e.workspace("conn-a"), e.workspace("conn-b")
	e.must(201, e.call("PUT", "/v1/_emulator/connections/a-only", map[string]any{"workspaceId": a, "bootstrapServers": "127.0.0.1:1"}))
	topo := map[string]any{"sources": []any{map[string]any{"name": "k", "type": "ApacheKafka",
		"properties": map[string]any{"dataConnectionId": "a-only", "topic": "t", "consumerGroupName": "g"}}}}
	r := e.call("POST", "/v1/workspaces/"+b+"/eventstreams", map[string]any{"displayName": "steal", "definition": definitionOf(topo, nil)})
	e.wantError(r, 400, "InvalidInput")
	if msg := r.str("message"); !strings.Contains(msg, `"a-only"`) || !strings.Contains(msg, "workspace") {
		t.Fatalf("message %s", msg)
	}
	own := e.must(201, e.call("POST", "/v1/workspaces/"+a+"/eventstreams", map[string]any{"displayName": "own", "definition": definitionOf(topo, nil)}))
	base := "/v1/workspaces/" + a + "/eventstreams/" + own.str("id")

	// The id deleted and registered again by another workspace: the running
	// source of the first does not follow it there.
	e.must(200, e.call("DELETE", "/v1/_emulator/connections/a-only", nil))
	e.must(201, e.call("PUT", "/v1/_emulator/connections/a-only", map[string]any{"workspaceId": b, "bootstrapServers": "127.0.0.2:1"}))
	waitFor(t, 10*time.Second, "source refuses the other workspace's connection", func() bool {
		errObj, _ := sourceNode(t, e, base, "k")["error"].(map[string]any)
		msg, _ := errObj["errorMessage"].(string)
		return strings.Contains(msg, "not registered in this workspace")
	})

	// A deleted workspace takes its connections with it; the id is free again.
	e.must(200, e.call("DELETE", "/v1/workspaces/"+b, nil))
	e.wantError(e.call("GET", "/v1/_emulator/connections/a-only", nil), 404, "ConnectionNotFound")
	e.must(201, e.call("PUT", "/v1/_emulator/connections/a-only", map[string]any{"workspaceId": a, "bootstrapServers": "127.0.0.1:1"}))
}

// syncBuffer is a bytes.Buffer safe for a logger's concurrent writers.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestConnectionSecretsAtRest: after a connection with a password is
// registered (and used by a source), the data dir is 0700, the database and
// its -wal and -shm files 0600, no file that group or others can read holds
// the password, and a data dir left world-readable by an older version is
// tightened when it opens. Neither answers nor log lines carry the password.
func TestConnectionSecretsAtRest(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	logs := &syncBuffer{}
	logger := slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	e := startEnv(t, emulator.WithDataDir(dir), emulator.WithPartitions(1), emulator.WithLogger(logger))
	ws := e.workspace("secrets")
	other, _ := secondCluster(t) // no SASL: the source fails its handshake
	conn := saslConnection(ws, strings.Join(other.ListenAddrs(), ","))
	put := e.must(201, e.call("PUT", "/v1/_emulator/connections/secret-conn", conn))
	base, _ := deploy(t, e, ws, "sasl", map[string]any{"type": "ApacheKafka",
		"properties": map[string]any{"dataConnectionId": "secret-conn", "topic": "orders", "consumerGroupName": "g", "autoOffsetReset": "Earliest"}}, "", "")
	waitFor(t, 15*time.Second, "source tried its cluster", func() bool { return sourceNode(t, e, base, "sasl-src")["status"] == "Failed" })
	answers := []resp{put, e.call("PUT", "/v1/_emulator/connections/secret-conn", conn),
		e.call("GET", "/v1/_emulator/connections/secret-conn", nil), e.call("GET", "/v1/_emulator/connections", nil),
		e.call("GET", base+"/topology", nil), e.call("POST", base+"/getDefinition", nil)}
	for _, r := range answers {
		if strings.Contains(string(r.Raw), connectionSecret) {
			t.Fatalf("an answer carries the password: %s", r.Raw)
		}
	}
	checkDataDirModes(t, dir)

	// A data dir as older versions left it (the directory 0755, the
	// database files 0644) is tightened when it opens.
	e.srv.Close()
	for _, f := range []string{"metadata.db", "metadata.db-wal", "metadata.db-shm"} {
		if err := os.Chmod(filepath.Join(dir, f), 0o644); err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
	}
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	e2 := startEnv(t, emulator.WithDataDir(dir), emulator.WithPartitions(1), emulator.WithLogger(logger))
	if got := e2.must(200, e2.call("GET", "/v1/_emulator/connections/secret-conn", nil)); got.Body["hasPassword"] != true {
		t.Fatalf("after restart: %s", got.Raw)
	}
	checkDataDirModes(t, dir)
	if !strings.Contains(logs.String(), "kafka source failed") {
		t.Fatalf("the source's failure was not logged, so the log check saw nothing:\n%s", logs.String())
	}
	if strings.Contains(logs.String(), connectionSecret) {
		t.Fatalf("a log line carries the password:\n%s", logs.String())
	}
}

// checkDataDirModes stats every file under dir.
func checkDataDirModes(t *testing.T, dir string) {
	t.Helper()
	if fi, err := os.Stat(dir); err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("data dir %s: mode %v (%v), want 0700", dir, fi.Mode().Perm(), err)
	}
	seen := map[string]bool{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		name := filepath.Base(p)
		if strings.HasPrefix(name, "metadata.db") || name == "token-signing-key.pem" {
			seen[name] = true
			if fi.Mode().Perm() != 0o600 {
				t.Errorf("%s: mode %v, want 0600", p, fi.Mode().Perm())
			}
		}
		if fi.Mode().Perm()&0o044 != 0 {
			if b, err := os.ReadFile(p); err == nil && bytes.Contains(b, []byte(connectionSecret)) {
				t.Errorf("%s (mode %v) holds the password and is readable by group or others", p, fi.Mode().Perm())
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"metadata.db", "metadata.db-wal", "metadata.db-shm", "token-signing-key.pem"} {
		if !seen[f] {
			t.Errorf("%s missing under %s (saw %v)", f, dir, seen)
		}
	}
}

// TestEndpointKeysOnlyInTheirAnswer: a custom endpoint's keys are answered
// by its connection route (to Contributors, as in Fabric) and nowhere else:
// not in the item, its topology or definition, nor in a log line, even when
// a client authenticates with them or with a wrong one.
func TestEndpointKeysOnlyInTheirAnswer(t *testing.T) {
	logs := &syncBuffer{}
	f := deployEndpoint(t, emulator.WithLogger(slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))))
	e := f.e
	c := f.connection("GET", "/sources/"+f.src+"/connection", nil)
	if err := produceOne(t, e.srv.KafkaEndpoint(), c.AccessKeys.PrimaryConnectionString, f.topic, `{"n":1}`); err != nil {
		t.Fatalf("produce with the key: %v", err)
	}
	wrong := strings.Replace(c.AccessKeys.PrimaryConnectionString, c.AccessKeys.PrimaryKey, c.AccessKeys.SecondaryKey[:10]+c.AccessKeys.PrimaryKey[10:], 1)
	if err := produceOne(t, e.srv.KafkaEndpoint(), wrong, f.topic, `{"n":2}`); err == nil {
		t.Fatal("a wrong key produced")
	}
	ws := strings.Split(f.base, "/")[3]
	for _, r := range []resp{e.call("GET", f.base, nil), e.call("GET", f.base+"/topology", nil), e.call("POST", f.base+"/getDefinition", nil),
		e.call("GET", "/v1/workspaces/"+ws+"/items", nil), e.call("GET", f.base+"/sources/"+f.src, nil)} {
		for _, k := range []string{c.AccessKeys.PrimaryKey, c.AccessKeys.SecondaryKey} {
			if strings.Contains(string(r.Raw), k) {
				t.Fatalf("an answer carries a key: %s", r.Raw)
			}
		}
	}
	for _, k := range []string{c.AccessKeys.PrimaryKey, c.AccessKeys.SecondaryKey, c.AccessKeys.SecondaryKey[:10] + c.AccessKeys.PrimaryKey[10:]} {
		if strings.Contains(logs.String(), k) {
			t.Fatalf("a log line carries a key:\n%s", logs.String())
		}
	}
}
