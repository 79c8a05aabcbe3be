package emulator_test

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/fabrictest/fabrictest/emulator"
)

// Fabric's custom endpoint (learn.microsoft.com/fabric/real-time-intelligence/
// event-streams/add-source-custom-app, "Kafka" tab) hands Kafka clients
// bootstrap.servers=<namespace>:9093, security.protocol=SASL_SSL,
// sasl.mechanism=PLAIN and the connection string as password; with WithTLS
// the emulator takes exactly those settings, with only the endpoint and the
// CA changed.

// TestTLSEndToEnd: the API answers HTTPS (Request.TLS set, so Location
// headers say https), the CA route answers the CA, and a franz-go client
// with SASL_SSL produces into the Lakehouse destination.
func TestTLSEndToEnd(t *testing.T) {
	e, _ := startServed(t, emulator.WithTLS(), emulator.WithAsyncOperations())
	if !strings.HasPrefix(e.url, "https://") {
		t.Fatalf("url %s, want https", e.url)
	}
	ws := e.workspace("tls")
	r := e.call("POST", "/v1/workspaces/"+ws+"/lakehouses", map[string]any{"displayName": "lh"})
	if r.Status != 202 || !strings.HasPrefix(r.Header.Get("Location"), "https://") {
		t.Fatalf("async create: %d, Location %q; want 202 and an https Location", r.Status, r.Header.Get("Location"))
	}
	status, _, pem := e.send("", "GET", "/_emulator/ca.pem", nil)
	if status != 200 || string(pem) != string(e.srv.CACertificate()) {
		t.Fatalf("ca.pem: %d %q", status, pem)
	}
}

// TestTLSCustomEndpointSASLSSL: the connection string authenticates over
// SASL_SSL on the custom endpoint; events land in the Lakehouse.
func TestTLSCustomEndpointSASLSSL(t *testing.T) {
	e, _ := startServed(t, emulator.WithTLS())
	f := deployEndpointIn(e)
	c := f.connection("GET", "/sources/"+f.src+"/connection", nil)
	cl := saslClient(t, e.srv.KafkaEndpoint(), c.AccessKeys.PrimaryConnectionString,
		kgo.DefaultProduceTopic(c.EventHubName), kgo.DialTLSConfig(&tls.Config{RootCAs: e.srv.CertPool()}))
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for i := range 3 {
		if err := cl.ProduceSync(ctx, &kgo.Record{Value: []byte(`{"n":` + string(rune('0'+i)) + `}`)}).FirstErr(); err != nil {
			t.Fatalf("produce over SASL_SSL: %v", err)
		}
	}
	waitRows(t, f.table, 3)
}

// TestTLSWrongProtocol: a plain HTTP request on the HTTPS port, and a
// plain-text Kafka client on the SASL_SSL endpoint, each get a clear error;
// the emulator logs one line for each and keeps serving.
func TestTLSWrongProtocol(t *testing.T) {
	e, logs := startServed(t, emulator.WithTLS())
	plain := strings.Replace(e.url, "https://", "http://", 1)
	resp, err := http.Get(plain + "/_emulator/health")
	if err != nil {
		t.Fatal(err)
	}
	var body struct{ ErrorCode, Message string }
	json.NewDecoder(resp.Body).Decode(&body)
	resp.Body.Close()
	if resp.StatusCode != 400 || body.ErrorCode != emulator.HTTPSRequired || !strings.Contains(body.Message, "HTTPS server") {
		t.Fatalf("plain HTTP on HTTPS: %d %+v", resp.StatusCode, body)
	}
	// The server may log after the answer has reached the client.
	waitLog(t, logs, "plain HTTP request on the HTTPS port")
	cl := saslClient(t, e.srv.KafkaEndpoint(), "Endpoint=sb://x/;SharedAccessKeyName=k;SharedAccessKey=v;EntityPath=t")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := cl.Ping(ctx); err == nil {
		t.Fatal("a plain-text Kafka client got through the SASL_SSL endpoint")
	}
	waitLog(t, logs, "a plain-text client on the TLS endpoint")
	e.must(200, e.call("GET", "/_emulator/health", nil)) // still serving, over HTTPS
}

// TestPlainPortsRefuseTLS: with TLS off, a TLS client on the HTTP port and
// on the Kafka endpoint fails its handshake, and the emulator says why.
func TestPlainPortsRefuseTLS(t *testing.T) {
	e, logs := startServed(t)
	host := strings.TrimPrefix(e.url, "http://")
	for _, addr := range []string{host, e.srv.KafkaEndpoint()} {
		_, err := tls.Dial("tcp", addr, &tls.Config{ServerName: "localhost"})
		var rh tls.RecordHeaderError
		if err == nil || (!errors.As(err, &rh) && !errors.Is(err, io.EOF) && !strings.Contains(err.Error(), "reset")) {
			t.Errorf("TLS on the plain port %s: %v; want a failed handshake", addr, err)
		}
	}
	waitLog(t, logs, "a TLS client on the plain HTTP port")
	waitLog(t, logs, "a TLS client on the plain-text endpoint")
	e.must(200, e.call("GET", "/_emulator/health", nil))
	e.wantError(e.call("GET", "/_emulator/ca.pem", nil), 404, "TlsCaNotAvailable")
}

// TestTLSDataDir: the CA is kept at <data-dir>/tls/ca.pem, the same after
// a restart, and a restart with another advertised host keeps the CA while
// its server certificate names the new host.
func TestTLSDataDir(t *testing.T) {
	dir := t.TempDir()
	open := func(opts ...emulator.Option) *emulator.Server {
		srv, err := emulator.New(append([]emulator.Option{emulator.WithDataDir(dir), emulator.WithTLS("emulator.test")}, opts...)...)
		if err != nil {
			t.Fatal(err)
		}
		return srv
	}
	a := open()
	caPEM := a.CACertificate()
	a.Close()
	onDisk, err := os.ReadFile(filepath.Join(dir, emulator.TLSDir, "ca.pem"))
	if err != nil || string(onDisk) != string(caPEM) {
		t.Fatalf("ca.pem on disk: %v", err)
	}
	listen := freeAddr(t)
	b := open(emulator.WithKafkaEndpoint(listen), emulator.WithKafkaEndpointAdvertised("kafka.example.test:9093"))
	defer b.Close()
	if string(b.CACertificate()) != string(caPEM) {
		t.Fatal("the CA changed across a restart")
	}
	conn, err := tls.Dial("tcp", listen, &tls.Config{RootCAs: b.CertPool(), ServerName: "kafka.example.test"})
	if err != nil {
		t.Fatalf("verify the endpoint for the advertised host: %v", err)
	}
	conn.Close()
}

// TestTLSAdvertiseNewHost: advertising the endpoint under a host the
// certificate lacks (fabric-emulator advertise-endpoint, as the container
// fixture does) makes a certificate that names it, under the same CA; the
// API, on the same certificate, verifies for it too.
func TestTLSAdvertiseNewHost(t *testing.T) {
	e, logs := startServed(t, emulator.WithTLS())
	listen := e.srv.KafkaEndpoint()
	_, port, _ := net.SplitHostPort(listen)
	dial := func(addr string) error {
		c, err := tls.Dial("tcp", addr, &tls.Config{RootCAs: e.srv.CertPool(), ServerName: "kafka.example.test"})
		if err == nil {
			c.Close()
		}
		return err
	}
	if err := dial(listen); err == nil {
		t.Fatal("the certificate verified for a host it should not name yet")
	}
	r := e.must(200, e.call("POST", "/_emulator/kafka-endpoint", map[string]any{"advertised": "kafka.example.test:" + port}))
	if r.str("advertised") != "kafka.example.test:"+port {
		t.Fatalf("advertised %q", r.str("advertised"))
	}
	if err := dial(listen); err != nil {
		t.Fatalf("endpoint after advertising: %v", err)
	}
	if err := dial(strings.TrimPrefix(e.url, "https://")); err != nil {
		t.Fatalf("API after advertising: %v", err)
	}
	if len(logs.lines("made a server certificate for an advertised host")) != 1 {
		t.Fatalf("no log line for the new certificate:\n%s", logs.buf.String())
	}
}

// waitLog waits up to 5 s for exactly one log line containing sub.
func waitLog(t *testing.T, logs *logBuffer, sub string) {
	t.Helper()
	for range 250 {
		if n := len(logs.lines(sub)); n == 1 {
			return
		} else if n > 1 {
			t.Fatalf("%d log lines %q, want 1", n, sub)
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("no log line %q:\n%s", sub, logs.buf.String())
}

// freeAddr is a loopback address that was free a moment ago.
func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}
