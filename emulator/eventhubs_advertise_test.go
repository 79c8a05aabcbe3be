package emulator_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/fabrictest/fabrictest/emulator"
)

// TestAdvertiseAMQPEndpoint: POST /_emulator/amqp-endpoint changes the
// address connection strings name for Event Hubs clients (an emulator in a
// container learns its published AMQP port), leaves the Kafka namespace
// alone, drops the port on AMQP's own 5672, and refuses remote callers, bad
// addresses and an emulator whose AMQP endpoint is off.
func TestAdvertiseAMQPEndpoint(t *testing.T) {
	f := deployEndpoint(t)
	e := f.e
	kafka := e.srv.KafkaEndpoint()
	r := e.must(200, e.callAs("", "POST", "/_emulator/amqp-endpoint", map[string]any{"advertised": "localhost:15672"}))
	if r.str("advertised") != "localhost:15672" || e.srv.AMQPEndpoint() != "localhost:15672" {
		t.Fatalf("advertise: %s, endpoint %s", r.Raw, e.srv.AMQPEndpoint())
	}
	c := f.connection("GET", "/sources/"+f.src+"/connection", nil)
	if !strings.HasPrefix(c.AccessKeys.PrimaryConnectionString, "Endpoint=sb://localhost:15672/;") || c.FullyQualifiedNamespace != kafka {
		t.Fatalf("connection after advertise: %+v", c)
	}
	e.must(200, e.callAs("", "POST", "/_emulator/amqp-endpoint", map[string]any{"advertised": "127.0.0.1:5672"}))
	if c := f.connection("GET", "/sources/"+f.src+"/connection", nil); !strings.HasPrefix(c.AccessKeys.PrimaryConnectionString, "Endpoint=sb://127.0.0.1/;") {
		t.Fatalf("on port 5672 the string's Endpoint is the host alone: %q", c.AccessKeys.PrimaryConnectionString)
	}
	for _, bad := range []string{"no-port", ":5672", "host:0", "host:70000"} {
		e.wantError(e.callAs("", "POST", "/_emulator/amqp-endpoint", map[string]any{"advertised": bad}), 400, "InvalidInput")
	}
	req, _ := http.NewRequest("POST", "/_emulator/amqp-endpoint", strings.NewReader(`{"advertised":"evil:1"}`))
	req.RemoteAddr = "192.0.2.10:5555"
	rec := newRecorder()
	e.srv.Handler().ServeHTTP(rec, req)
	if rec.Code != 403 || e.srv.AMQPEndpoint() != "127.0.0.1:5672" {
		t.Fatalf("remote advertise: %d, endpoint %s", rec.Code, e.srv.AMQPEndpoint())
	}
	off := startEnv(t, emulator.WithAMQPEndpoint("off"))
	off.wantError(off.callAs("", "POST", "/_emulator/amqp-endpoint", map[string]any{"advertised": "localhost:15672"}), 501, "CustomEndpointAMQPDisabled")
}
