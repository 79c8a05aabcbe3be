package emulator_test

import (
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/fabrictest/fabrictest/emulator"
	"github.com/fabrictest/fabrictest/fixtures/kafka"
)

// keyVault is a CertificateResource as Fabric's tlsSettings name it.
func keyVault(name string) map[string]any {
	return map[string]any{"type": "KeyVault", "certificateName": name,
		"azureKeyVaultResourceId": "/subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/rg/providers/Microsoft.KeyVault/vaults/v"}
}

// A Kafka source honours its tlsSettings: the CA and client certificate it
// names (registered with the connection, standing in for Key Vault) reach a
// cluster that requires mutual TLS. Shapes from the Eventstream topology
// example of Microsoft's REST specification (GetEventstreamTopology.json).
func TestSourceKafkaTLSSettings(t *testing.T) {
	pki, err := kafka.NewPKI("source CA")
	if err != nil {
		t.Fatal(err)
	}
	addr := securedKfake(t, pki, true, false, kfake.SeedTopics(2, "orders"))
	sec, err := kafka.MutualTLS(pki)
	if err != nil {
		t.Fatal(err)
	}
	opts, _ := sec.ClientOpts("", "")
	prod, err := kgo.NewClient(append(opts, kgo.SeedBrokers(addr), kgo.DefaultProduceTopic("orders"), kgo.RecordPartitioner(kgo.ManualPartitioner()))...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(prod.Close)
	produceOrders(t, prod, 0, 3)

	e := startEnv(t, emulator.WithPartitions(1))
	ws := e.workspace("tls-src")
	conn := "0a0b0c0d-0000-1111-2222-3333444455aa"
	reg := map[string]any{"workspaceId": ws, "bootstrapServers": addr, "securityProtocol": "SSL",
		"caCertificates": pki.CAPEM, "clientCertificate": sec.ClientCertPEM, "clientKey": sec.ClientKeyPEM}
	got := e.must(201, e.call("PUT", "/v1/_emulator/connections/"+conn, reg))
	if got.str("caCertificates") != pki.CAPEM || strings.Contains(string(got.Raw), "PRIVATE KEY") || got.Body["hasClientKey"] != true {
		t.Fatalf("registered connection answers %s", got.Raw)
	}

	tlsSettings := map[string]any{
		"trustCACertificate": map[string]any{"certificate": keyVault("ca"), "verifyHostname": true},
		"clientCertificate":  map[string]any{"certificate": keyVault("client"), "revocationMode": "Off"},
	}
	src := func(ts any) map[string]any {
		return map[string]any{"type": "ApacheKafka", "properties": map[string]any{"dataConnectionId": conn, "topic": "orders",
			"consumerGroupName": "g", "autoOffsetReset": "Earliest", "securityProtocol": "SSL", "tlsSettings": ts}}
	}
	base, topic := deploy(t, e, ws, "tls", src(tlsSettings), "", "")
	waitFor(t, 15*time.Second, "source running", func() bool { return sourceNode(t, e, base, "tls-src")["status"] == "Running" })
	if n := len(readTopic(t, e, topic, 3)); n != 3 {
		t.Fatalf("%d records copied over mutual TLS, want 3", n)
	}

	// Without the client certificate the cluster refuses the source, which
	// says why in its status.
	noCert, noCertTopic := deploy(t, e, ws, "nocert", src(map[string]any{"trustCACertificate": tlsSettings["trustCACertificate"]}), "", "")
	waitFor(t, 15*time.Second, "source failed", func() bool { return sourceNode(t, e, noCert, "nocert-src")["status"] == "Failed" })
	if n := len(readTopic(t, e, noCertTopic, 0)); n != 0 {
		t.Fatalf("%d records copied without a client certificate", n)
	}

	// Refused at deploy, naming the field.
	name := 0
	refused := func(ts any, field string) {
		t.Helper()
		name++
		r := e.call("POST", "/v1/workspaces/"+ws+"/eventstreams", map[string]any{"displayName": "bad" + string(rune('a'+name)),
			"definition": definitionOf(map[string]any{"sources": []any{withName(src(ts), "s")},
				"streams":   []any{map[string]any{"name": "st", "type": "DefaultStream", "properties": map[string]any{}, "inputNodes": []any{map[string]any{"name": "s"}}}},
				"operators": []any{}, "destinations": []any{}}, nil)})
		if r.Status != 400 || !strings.Contains(r.str("message"), field) {
			t.Fatalf("tlsSettings %v: %d %s, want 400 naming %s", ts, r.Status, r.Raw, field)
		}
	}
	refused(map[string]any{"trustCACertificate": map[string]any{"certificate": keyVault("ca")}}, "tlsSettings.trustCACertificate.verifyHostname")
	refused(map[string]any{"trustCACertificate": map[string]any{"verifyHostname": true, "certificate": map[string]any{"type": "File"}}}, "tlsSettings.trustCACertificate.certificate.type")
	refused(map[string]any{"clientCertificate": map[string]any{"certificate": keyVault("c"), "revocationMode": "Sometimes"}}, "tlsSettings.clientCertificate.revocationMode")
	bare := "0a0b0c0d-0000-1111-2222-3333444455bb"
	e.must(201, e.call("PUT", "/v1/_emulator/connections/"+bare, map[string]any{"workspaceId": ws, "bootstrapServers": addr, "securityProtocol": "SSL"}))
	conn = bare
	refused(tlsSettings, "caCertificates")

	// Certificates only with TLS, and they must parse.
	e.wantError(e.call("PUT", "/v1/_emulator/connections/x1", map[string]any{"workspaceId": ws, "bootstrapServers": addr, "caCertificates": pki.CAPEM}), 400, "InvalidInput")
	r := e.call("PUT", "/v1/_emulator/connections/x2", map[string]any{"workspaceId": ws, "bootstrapServers": addr, "securityProtocol": "SSL", "caCertificates": "junk"})
	if r.Status != 400 || !strings.Contains(r.str("message"), "caCertificates") {
		t.Fatalf("junk CA: %d %s", r.Status, r.Raw)
	}
	r = e.call("PUT", "/v1/_emulator/connections/x3", map[string]any{"workspaceId": ws, "bootstrapServers": addr, "securityProtocol": "SSL", "clientCertificate": sec.ClientCertPEM})
	if r.Status != 400 || !strings.Contains(r.str("message"), "clientKey") {
		t.Fatalf("certificate without key: %d %s", r.Status, r.Raw)
	}
}

// withName sets a node's name.
func withName(n map[string]any, name string) map[string]any { n["name"] = name; return n }
