package fabrictest_test

import (
	"context"
	"crypto/x509"
	"encoding/pem"
	"net/http"
	"strings"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/fabrictest/fabrictest/fabrictest"
)

// TestTLS: WithTLS serves the API over HTTPS (the harness's helpers and
// Client trust the CA, a client that does not is refused) and the custom
// endpoint as SASL_SSL, as Fabric does (learn.microsoft.com/fabric/
// real-time-intelligence/event-streams/add-source-custom-app, Kafka tab:
// security.protocol SASL_SSL): Connection.KafkaOpts produces into a
// Lakehouse with no further setting.
func TestTLS(t *testing.T) {
	t.Parallel()
	g := NewWithT(t)
	env := fabrictest.Start(t, fabrictest.WithTLS("emulator.test"))
	g.Expect(env.URL).To(HavePrefix("https://127.0.0.1:"))
	blk, _ := pem.Decode(env.CACertificate())
	g.Expect(blk).NotTo(BeNil())
	ca, err := x509.ParseCertificate(blk.Bytes)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(ca.IsCA).To(BeTrue())

	resp, err := env.Client().Get(env.URL + "/v1/workspaces")
	g.Expect(err).NotTo(HaveOccurred())
	resp.Body.Close()
	g.Expect(resp.StatusCode).To(Equal(200), "Client trusts the CA and carries the token")
	_, err = http.Get(env.URL + "/_emulator/health")
	g.Expect(err).To(MatchError(ContainSubstring("certificate signed by unknown authority")))

	ws := env.Workspace("tls")
	lh := ws.Lakehouse("lh")
	es := ws.DeployEventstream("ce", map[string]any{
		"sources": []any{map[string]any{"name": "app", "type": "CustomEndpoint", "properties": map[string]any{}}},
		"streams": []any{map[string]any{"name": "s", "type": "DefaultStream", "properties": map[string]any{}, "inputNodes": []any{map[string]any{"name": "app"}}}},
		"destinations": []any{map[string]any{"name": "lake", "type": "Lakehouse", "inputNodes": []any{map[string]any{"name": "s"}},
			"properties": map[string]any{"workspaceId": ws.ID, "itemId": lh.ID, "deltaTable": "events", "minimumRows": 1}}},
	})
	conn := es.SourceConnection(es.Topology().Source("app").ID)
	cl, err := kgo.NewClient(append(conn.KafkaOpts(), kgo.DefaultProduceTopic(conn.EventHubName))...)
	g.Expect(err).NotTo(HaveOccurred())
	defer cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	g.Expect(cl.ProduceSync(ctx, &kgo.Record{Value: []byte(`{"n":1}`)}).FirstErr()).To(Succeed())
	g.Eventually(lh.Table("events").TrySnapshot).WithTimeout(10 * time.Second).Should(fabrictest.HaveDeltaRows(1))
	g.Expect(strings.Contains(env.String(), "https://")).To(BeTrue())
}
