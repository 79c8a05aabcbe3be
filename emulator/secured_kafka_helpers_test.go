package emulator_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/fabrictest/fabrictest/emulator"
)

// writeClientProperties writes props as a client.properties file, with the
// PEM values moved to files of their own (ssl.truststore.location,
// ssl.keystore.location), as a Java client's file usually has them.
func writeClientProperties(t *testing.T, props map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	var b strings.Builder
	b.WriteString("# written by the test, as a Java client reads it\n")
	for k, v := range props {
		switch k {
		case "ssl.truststore.certificates":
			fmt.Fprintf(&b, "ssl.truststore.location=%s\n", write("ca.pem", v))
		case "ssl.keystore.certificate.chain":
			fmt.Fprintf(&b, "ssl.keystore.location=%s\n", write("client.pem", props["ssl.keystore.key"]+v))
		case "ssl.keystore.key":
		default:
			fmt.Fprintf(&b, "%s=%s\n", k, v)
		}
	}
	return write("client.properties", b.String())
}

// deliverSecured checks an emulator on a secured cluster end to end: an
// Eventstream produced to over HTTP and through the custom endpoint,
// drained into a Lakehouse whose Delta table holds every event. It returns
// the custom endpoint's Eventstream.
func deliverSecured(t *testing.T, e *testEnv) endpointFixture {
	t.Helper()
	s := newStream(e)
	l := bindLakehouse(t, s, "secured")
	e.must(200, e.call("POST", s.produce, `{"events":[{"value":{"n":1}},{"value":{"n":2}},{"value":{"n":3}}]}`))
	waitRows(t, l.dir, 3)
	if snap := readTable(t, l.dir); len(snap.Rows) != 3 {
		t.Fatalf("%d rows, want 3", len(snap.Rows))
	}

	// The custom endpoint logs in to the secured cluster itself; its
	// clients still authenticate with their connection string.
	f := deployEndpointIn(e)
	c := f.connection("GET", "/sources/"+f.src+"/connection", nil)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	p := saslClient(t, c.FullyQualifiedNamespace, c.AccessKeys.PrimaryConnectionString, kgo.DefaultProduceTopic(c.EventHubName))
	for i := range 5 {
		if err := p.ProduceSync(ctx, &kgo.Record{Value: fmt.Appendf(nil, `{"n":%d}`, i)}).FirstErr(); err != nil {
			t.Fatalf("produce %d through the custom endpoint: %v", i, err)
		}
	}
	waitRows(t, f.table, 5)
	return f
}

// resolved is the resolve route's answer for s.
func resolved(t *testing.T, e *testEnv) map[string]any {
	t.Helper()
	s := newStream(e)
	return e.must(200, e.call("GET", "/v1/eventstreams/"+s.id+"/sources/"+s.ds, nil)).Body
}

// refusedAtStart checks that an emulator with props fails to start with an
// error saying want.
func refusedAtStart(t *testing.T, addr string, props map[string]string, want string) {
	t.Helper()
	start := time.Now()
	srv, err := emulator.New(emulator.WithKafka(addr), emulator.WithKafkaProperties(props))
	if err == nil {
		srv.Close()
		t.Fatalf("started; want an error saying %q", want)
	}
	if !strings.Contains(err.Error(), want) {
		t.Fatalf("start error %q does not say %q", err, want)
	}
	t.Logf("refused at start in %s: %v", time.Since(start).Round(time.Millisecond), err)
}
