package emulator_test

import (
	"encoding/base64"
	"fmt"
	"net"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/fabrictest/fabrictest/emulator"
	"github.com/fabrictest/fabrictest/internal/testclients"
)

// javaAMQPS is where the Java test's emulator serves AMQPS: Event Hubs'
// port on loopback, because azure-messaging-eventhubs connects to the
// namespace's host on 5671 whatever the string's Endpoint says, and the
// sample's code stays unchanged (no customEndpointAddress).
const javaAMQPS = "127.0.0.1:5671"

// TestEventHubsJavaSDK: azure-messaging-eventhubs as Fabric's Entra ID
// sample writes it (EventHubClientBuilder with DefaultAzureCredential, the
// service principal in AZURE_CLIENT_ID, AZURE_TENANT_ID and
// AZURE_CLIENT_SECRET, the emulator's token service in
// AZURE_AUTHORITY_HOST, its CA in a JVM trust store) sends a batch and
// receives it back in the consumer group the destination's connection
// names; then with the source's and the destination's connection strings,
// unchanged, receiving in the destination's own group (its id). The
// consume route reads every event byte-exact.
func TestEventHubsJavaSDK(t *testing.T) {
	java, cp, src := testclients.JavaEventHubs(t)
	if ln, err := net.Listen("tcp", javaAMQPS); err != nil {
		t.Fatalf("the Java SDK test needs %s free (the SDK connects on AMQPS port 5671): %v", javaAMQPS, err)
	} else {
		ln.Close()
	}
	e, _ := startServed(t, emulator.WithTLS(), emulator.WithAMQPEndpoint(javaAMQPS))
	f := deployEndpointIn(e)
	if _, err := e.srv.RegisterEntraApp(emulator.EntraApp{ClientID: spClientID, ClientSecret: spSecret}); err != nil {
		t.Fatal(err)
	}
	ws := strings.Split(f.base, "/")[3]
	e.must(201, e.call("POST", "/v1/workspaces/"+ws+"/roleAssignments", map[string]any{
		"principal": map[string]any{"id": emulator.ServicePrincipalID(spClientID), "type": "ServicePrincipal"}, "role": "Contributor"}))
	in := f.connection("GET", "/sources/"+f.src+"/connection", nil)
	out := f.connection("GET", "/destinations/"+f.out+"/connection", nil)
	if out.ConsumerGroupName == nil || *out.ConsumerGroupName == "" {
		t.Fatalf("destination connection names no consumer group: %+v", out)
	}
	namespace := stringEndpointHost(t, in.AccessKeys.PrimaryConnectionString)
	if namespace != "127.0.0.1" {
		t.Fatalf("with TLS on 5671 the string's Endpoint is the bare host, as in Fabric: %s", in.AccessKeys.PrimaryConnectionString)
	}
	store, pass := testclients.JavaTrustStore(t, e.srv.CACertificate())
	t.Setenv("AZURE_CLIENT_ID", spClientID)
	t.Setenv("AZURE_TENANT_ID", spTenant)
	t.Setenv("AZURE_CLIENT_SECRET", spSecret)
	t.Setenv("AZURE_AUTHORITY_HOST", e.url)
	run := func(mode, a, b, group string, bodies [][]byte) [][]byte {
		t.Helper()
		var stdin strings.Builder
		for _, body := range bodies {
			stdin.WriteString(base64.StdEncoding.EncodeToString(body) + "\n")
		}
		got := testclients.RunWithin(t, 3*time.Minute, []byte(stdin.String()), java,
			"-Djavax.net.ssl.trustStore="+store, "-Djavax.net.ssl.trustStorePassword="+pass, "-Djavax.net.ssl.trustStoreType=PKCS12",
			"-Dorg.slf4j.simpleLogger.defaultLogLevel=warn", "-cp", cp, src, mode, a, b, group)
		return javaReceived(t, got, len(bodies))
	}

	first := javaBodies("entra", 6)
	got := run("credential", namespace, in.EventHubName, *out.ConsumerGroupName, first)
	assertSameBodies(t, "Java consumer with DefaultAzureCredential", got, first)
	second := javaBodies("keys", 4)
	got = run("connection-string", in.AccessKeys.PrimaryConnectionString, out.AccessKeys.PrimaryConnectionString, f.out, second)
	assertSameBodies(t, "Java consumer with the destination's string, in its own group", got, slices.Concat(first, second))

	var recs []record
	waitFor(t, 10*time.Second, "10 events on the consume route", func() bool { recs, _ = f.stream().consume(""); return len(recs) >= 10 })
	values := make([][]byte, len(recs))
	for i, r := range recs {
		values[i] = r.Value
	}
	assertSameBodies(t, "consume route", values, slices.Concat(first, second))
	waitRows(t, f.table, 10)
}

// javaBodies are n JSON events whose bytes a re-encoding would change
// (spacing, escapes, non-ASCII).
func javaBodies(tag string, n int) [][]byte {
	bodies := make([][]byte, n)
	for i := range bodies {
		bodies[i] = fmt.Appendf(nil, `{ "n":%d,  "by":"%s", "text":"caf\u00e9 \"q\" é ✓" }`, i, tag)
	}
	return bodies
}

// javaReceived decodes EventHubsRoundTrip's output: "sent N", then one
// base64 body a line.
func javaReceived(t *testing.T, out []byte, sent int) [][]byte {
	t.Helper()
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if lines[0] != fmt.Sprintf("sent %d", sent) {
		t.Fatalf("Java producer printed %q, want \"sent %d\"", lines[0], sent)
	}
	var bodies [][]byte
	for _, l := range lines[1:] {
		b, err := base64.StdEncoding.DecodeString(l)
		if err != nil {
			t.Fatalf("Java consumer line %q: %v", l, err)
		}
		bodies = append(bodies, b)
	}
	return bodies
}

// assertSameBodies fails unless got holds exactly want's bodies, byte for
// byte, in any order across partitions.
func assertSameBodies(t *testing.T, who string, got, want [][]byte) {
	t.Helper()
	g, w := make([]string, len(got)), make([]string, len(want))
	for i := range got {
		g[i] = string(got[i])
	}
	for i := range want {
		w[i] = string(want[i])
	}
	slices.Sort(g)
	slices.Sort(w)
	if !slices.Equal(g, w) {
		t.Fatalf("%s read %d events %q, want %d %q", who, len(g), g, len(w), w)
	}
}

// stringEndpointHost is the host of a connection string's Endpoint.
func stringEndpointHost(t *testing.T, conn string) string {
	t.Helper()
	for _, part := range strings.Split(conn, ";") {
		if v, ok := strings.CutPrefix(part, "Endpoint=sb://"); ok {
			return strings.TrimSuffix(v, "/")
		}
	}
	t.Fatalf("no Endpoint=sb:// in %q", conn)
	return ""
}
