package emulator_test

import (
	"crypto/tls"
	"crypto/x509"
	"strings"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/messaging/azeventhubs"
	"github.com/fabrictest/fabrictest/emulator"
)

// TestEventHubsEntraIDNeedsContributor: azeventhubs with azidentity's
// ClientSecretCredential (the token service as authority, the scope
// https://eventhubs.azure.net/.default) over AMQPS with the emulator's CA:
// refused while the service principal has no role in the workspace,
// accepted once it is a Contributor (fabric-docs "Connect to Eventstream
// using Microsoft Entra ID authentication").
func TestEventHubsEntraIDNeedsContributor(t *testing.T) {
	e := startTLSEnv(t, emulator.WithTLS())
	f := deployEndpointIn(e.testEnv)
	ctx := ehContext(t)
	c := f.connection("GET", "/sources/"+f.src+"/connection", nil)
	if !strings.HasPrefix(c.AccessKeys.PrimaryConnectionString, "Endpoint=sb://"+e.srv.KafkaEndpoint()+"/;") || strings.Contains(c.AccessKeys.PrimaryConnectionString, "UseDevelopmentEmulator") {
		t.Fatalf("with TLS the string has Fabric's shape on the Kafka endpoint %s, which takes AMQPS too: %s", e.srv.KafkaEndpoint(), c.AccessKeys.PrimaryConnectionString)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(e.srv.CACertificate()) {
		t.Fatal("no CA")
	}
	// azeventhubs takes the namespace, port included, as the TLS server
	// name; on a port other than 5671 the client names the host itself.
	producer := func() *azeventhubs.ProducerClient {
		p, err := azeventhubs.NewProducerClient(e.srv.AMQPEndpoint(), c.EventHubName, e.credential(spSecret),
			&azeventhubs.ProducerClientOptions{TLSConfig: &tls.Config{RootCAs: pool, ServerName: "localhost"}, RetryOptions: azeventhubs.RetryOptions{MaxRetries: -1}})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { p.Close(ctx) })
		return p
	}
	err := ehSend(ctx, producer(), nil, nil, `{"n":0}`)
	if err == nil || !strings.Contains(err.Error(), "Contributor") {
		t.Fatalf("send without a role: %v, want a refusal naming Contributor", err)
	}
	ws := strings.Split(f.base, "/")[3]
	e.must(201, e.call("POST", "/v1/workspaces/"+ws+"/roleAssignments", map[string]any{
		"principal": map[string]any{"id": emulator.ServicePrincipalID(spClientID), "type": "ServicePrincipal"}, "role": "Contributor"}))
	if err := ehSend(ctx, producer(), nil, nil, `{"n":1}`, `{"n":2}`); err != nil {
		t.Fatalf("send as a Contributor: %v", err)
	}
	var recs []record
	waitFor(t, 10*time.Second, "2 events", func() bool { recs, _ = f.stream().consume(""); return len(recs) >= 2 })
	if len(recs) != 2 || string(recs[0].Value) != `{"n":1}` {
		t.Fatalf("read %+v", recs)
	}
}
