//go:build container

package specs_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/sasl/plain"

	"github.com/fabrictest/fabrictest/fabrictest"
)

// templateNodes reads Microsoft's Eventstream definition template (beside
// the checkout, in ../shared; never copied here) and returns its nodes by name.
func templateNodes() map[string]map[string]any {
	GinkgoHelper()
	wd, err := os.Getwd()
	Expect(err).NotTo(HaveOccurred())
	raw, err := os.ReadFile(filepath.Join(filepath.Dir(wd), "..", "shared", "fabric-event-streams-template", "eventstream-definition.json"))
	Expect(err).NotTo(HaveOccurred(), "Microsoft's template lives in ../shared/fabric-event-streams-template")
	var full map[string]any
	Expect(json.Unmarshal(raw, &full)).To(Succeed())
	out := map[string]map[string]any{}
	for _, list := range []string{"sources", "streams", "operators", "destinations"} {
		for _, n := range full[list].([]any) {
			out[n.(map[string]any)["name"].(string)] = n.(map[string]any)
		}
	}
	return out
}

var _ = Describe("Custom endpoint over the Kafka protocol on Apache Kafka", Label("kafka", "container"), func() {
	It("deploys Microsoft's template, takes events from a Kafka client holding the connection string, and lands them in a Lakehouse read by delta-rs", func(ctx SpecContext) {
		env := fabrictest.Start(GinkgoTB())
		ws := env.WithContext(ctx).Workspace("custom-endpoint")
		lh := ws.Lakehouse("bikes_lh")

		By("assembling the definition from the template: CustomEndpoint source → Filter → Lakehouse, plus a CustomEndpoint destination")
		t := templateNodes()
		src, stream, filter := t["CustomEndpointSource"], t["myEventstream-stream"], t["FilterName"]
		lake, out := t["LakehouseDestination"], t["CustomEndpointDestination"]
		stream["inputNodes"] = []any{map[string]any{"name": "CustomEndpointSource"}}
		// The template's Filter keeps bikes whose BikepointID is not "0".
		lake["inputNodes"] = []any{map[string]any{"name": "FilterName"}}
		props := lake["properties"].(map[string]any)
		props["workspaceId"], props["itemId"], props["deltaTable"] = ws.ID, lh.ID, "bikes"
		es := ws.DeployEventstream("myEventstream", map[string]any{
			"sources": []any{src}, "streams": []any{stream}, "operators": []any{filter},
			"destinations": []any{lake, out}, "compatibilityLevel": "1.0",
		})
		topo := es.Topology()
		source := topo.Source("CustomEndpointSource")
		Expect(source.Status).To(Equal("Running"))

		By("reading the source's connection: Fabric's connection string form")
		conn := es.SourceConnection(source.ID)
		Expect(conn.EventHubName).To(Equal(es.Topic))
		Expect(conn.AccessKeys.PrimaryConnectionString).To(MatchRegexp(
			`^Endpoint=sb://[^/]+/;SharedAccessKeyName=key_[0-9a-f]{8};SharedAccessKey=[A-Za-z0-9+/]{43}=;(UseDevelopmentEmulator=true;)?EntityPath=` + es.Topic + `$`))

		By("producing with a Kafka client configured the Event Hubs way (SASL PLAIN, $ConnectionString)")
		producer, err := kgo.NewClient(append(conn.KafkaOpts(), kgo.DefaultProduceTopic(conn.EventHubName))...)
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(producer.Close)
		const n = 10
		for i := range n {
			v, _ := json.Marshal(map[string]any{"BikepointID": fmt.Sprint(i % 5), "Street": fmt.Sprintf("street %d", i), "No_Bikes": i})
			Expect(producer.ProduceSync(ctx, &kgo.Record{Key: []byte(fmt.Sprint(i)), Value: v}).FirstErr()).To(Succeed())
		}

		By("finding the 8 events the Filter keeps in the Delta table, read by delta-rs, once the template's batching commits them (120 s of emulator clock)")
		table := lh.Table("bikes")
		committed := func(n int) func(Gomega) {
			return func(g Gomega) {
				env.AdvanceClock(2 * time.Minute) // rows buffered by now are due
				g.Expect(table).To(fabrictest.HaveDeltaRows(n))
			}
		}
		Eventually(committed(8)).WithContext(ctx).WithTimeout(30 * time.Second).Should(Succeed())
		rs := deltaRS(ctx, table.Dir)
		Expect(rs.Rows).To(HaveLen(8))
		for _, r := range rs.Rows {
			Expect(r["BikepointID"]).NotTo(Equal("0"))
		}

		By("consuming the stream from the CustomEndpoint destination's connection, in its consumer group")
		dconn := es.DestinationConnection(topo.Destination("CustomEndpointDestination").ID)
		Expect(dconn.ConsumerGroupName).To(Equal("$Default"))
		Expect(dconn.EventHubName).To(Equal(es.Topic))
		consumer, err := kgo.NewClient(append(dconn.KafkaOpts(), kgo.ConsumeTopics(dconn.EventHubName),
			kgo.ConsumerGroup(dconn.ConsumerGroupName), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))...)
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(consumer.Close)
		var got []*kgo.Record
		Eventually(func(g Gomega) {
			f := consumer.PollFetches(ctx)
			g.Expect(f.Errors()).To(BeEmpty())
			got = append(got, f.Records()...)
			g.Expect(got).To(HaveLen(n))
		}).WithContext(ctx).WithTimeout(30 * time.Second).Should(Succeed())

		By("refusing a wrong key in the broker's SASL handshake")
		bad := strings.Replace(conn.AccessKeys.PrimaryConnectionString, conn.AccessKeys.PrimaryKey, strings.Repeat("A", 43)+"=", 1)
		Expect(bad).NotTo(Equal(conn.AccessKeys.PrimaryConnectionString))
		err = produceWith(ctx, conn.Bootstrap(), bad, conn.EventHubName)
		Expect(err).To(MatchError(kerr.SaslAuthenticationFailed))

		By("regenerating the primary key: the old string is refused, the secondary still works")
		rotated := es.RegenerateSourceKey(source.ID, "PrimaryKey")
		Expect(rotated.AccessKeys.PrimaryKey).NotTo(Equal(conn.AccessKeys.PrimaryKey))
		Expect(rotated.AccessKeys.SecondaryKey).To(Equal(conn.AccessKeys.SecondaryKey))
		Expect(produceWith(ctx, conn.Bootstrap(), conn.AccessKeys.PrimaryConnectionString, conn.EventHubName)).To(MatchError(kerr.SaslAuthenticationFailed))
		Expect(produceWith(ctx, conn.Bootstrap(), conn.AccessKeys.SecondaryConnectionString, conn.EventHubName)).To(Succeed())
		Expect(produceWith(ctx, rotated.Bootstrap(), rotated.AccessKeys.PrimaryConnectionString, rotated.EventHubName)).To(Succeed())
		Eventually(committed(10)).WithContext(ctx).WithTimeout(30 * time.Second).Should(Succeed())
	})
})

// produceWith produces one event with a fresh client authenticated by
// connectionString and returns the first error.
func produceWith(ctx SpecContext, bootstrap, connectionString, topic string) error {
	cl, err := kgo.NewClient(kgo.SeedBrokers(bootstrap), kgo.DefaultProduceTopic(topic), kgo.RequestRetries(0),
		kgo.RecordDeliveryTimeout(10*time.Second), kgo.SASL(plain.Auth{User: "$ConnectionString", Pass: connectionString}.AsMechanism()))
	if err != nil {
		return err
	}
	defer cl.Close()
	// A refused handshake surfaces on the first request (a producer would
	// retry the record until its delivery timeout).
	if err := cl.Ping(ctx); err != nil {
		return err
	}
	return cl.ProduceSync(ctx, &kgo.Record{Value: []byte(`{"BikepointID":"7"}`)}).FirstErr()
}
