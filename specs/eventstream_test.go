//go:build container

package specs_test

import (
	"encoding/json"
	"fmt"
	"sort"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/fabrictest/fabrictest/fabrictest"
	"github.com/fabrictest/fabrictest/fixtures/kafka"
)

const wrongID = "00000000-0000-0000-0000-00000000dead"

var _ = Describe("Eventstream on Apache Kafka", Label("kafka", "container"), func() {
	var (
		env *fabrictest.Env
		ws  fabrictest.Workspace
		es  fabrictest.Eventstream
	)

	BeforeEach(func() {
		// The first spec starts the suite's Kafka container (a few seconds);
		// teardown is registered with DeferCleanup through GinkgoTB. The
		// handles are not bound to this node's context (it ends with the
		// node): each It binds its own with WithContext.
		env = fabrictest.Start(GinkgoTB())
		ws = env.Workspace("witness")
		es = ws.Eventstream("orders")
	})

	It("carries JSON from the Custom HTTP source to a Kafka consumer, with Kafka's schema", func(ctx SpecContext) {
		es := es.WithContext(ctx)

		By("resolving the notebook's eventstream.itemid / eventstream.datasourceid to Apache Kafka")
		src := es.Resolve()
		Expect(src.Topic).To(Equal(es.ID + "." + es.DatasourceID))
		Expect(src.Topic).To(Equal(es.Topic))
		Expect(src.Brokers()).To(Equal(env.KafkaBootstrap()))
		Expect(src.SecurityProtocol).To(Equal("PLAINTEXT"))
		cl, err := kgo.NewClient(kgo.SeedBrokers(src.Brokers()...))
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(cl.Close)
		meta, err := kadm.NewClient(cl).Metadata(ctx, src.Topic)
		Expect(err).NotTo(HaveOccurred())
		Expect(meta.Cluster).NotTo(Equal("fabric-emulator"), "the broker is the embedded kfake, not Apache Kafka")
		if env.KafkaBackend() == fabrictest.KafkaContainer {
			Expect(meta.Cluster).To(Equal(kafka.DefaultClusterID), "the fixture formats KRaft storage with this cluster id")
		}
		Expect(meta.Topics[src.Topic].Partitions).To(HaveLen(4), "an Eventstream topic has 4 partitions")

		By("producing 12 JSON events through the Custom HTTP source")
		const n = 12
		events := make([]any, n)
		want := map[string]map[string]any{} // key → value
		for i := range n {
			key := fmt.Sprintf("order-%02d", i)
			value := map[string]any{"order": float64(i), "amount": 10.5 + float64(i), "currency": "EUR"}
			events[i] = fabrictest.Event{Key: key, Value: value}
			want[key] = value
		}
		before := time.Now().Add(-time.Second)
		res := es.Produce(events...)
		after := time.Now().Add(time.Second)
		Expect(res.Produced).To(Equal(n))
		Expect(res.Topic).To(Equal(src.Topic))
		Expect(res.Events).To(HaveLen(n))
		positions := map[string]fabrictest.Position{} // key → where the answer says it landed
		for i, p := range res.Events {
			positions[fmt.Sprintf("order-%02d", i)] = p
		}

		By("consuming through the Kafka protocol with franz-go, as Spark's Kafka source would")
		consumer, err := kgo.NewClient(
			kgo.SeedBrokers(src.Brokers()...),
			kgo.ConsumeTopics(src.Topic),
			kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()),
		)
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(consumer.Close)
		var wire []*kgo.Record
		Eventually(func(g Gomega) {
			fetches := consumer.PollFetches(ctx)
			g.Expect(fetches.Errors()).To(BeEmpty())
			wire = append(wire, fetches.Records()...)
			g.Expect(wire).To(HaveLen(n))
		}).WithContext(ctx).WithTimeout(30 * time.Second).WithPolling(10 * time.Millisecond).Should(Succeed())

		By("checking every Kafka column: key, value, topic, partition, offset, timestamp")
		seen := map[string]bool{}
		for _, r := range wire {
			key := string(r.Key)
			Expect(want).To(HaveKey(key))
			Expect(seen).NotTo(HaveKey(key), "record %s delivered twice", key)
			seen[key] = true
			var value map[string]any
			Expect(json.Unmarshal(r.Value, &value)).To(Succeed())
			Expect(value).To(Equal(want[key]))
			Expect(r.Topic).To(Equal(src.Topic))
			Expect(r.Partition).To(BeNumerically(">=", 0))
			Expect(r.Partition).To(BeNumerically("<", 4))
			Expect(fabrictest.Position{Partition: r.Partition, Offset: r.Offset}).To(Equal(positions[key]),
				"record %s is where the produce answer said", key)
			Expect(r.Timestamp).To(BeTemporally(">=", before))
			Expect(r.Timestamp).To(BeTemporally("<=", after))
			Expect(r.Attrs.TimestampType()).To(BeEquivalentTo(0), "CreateTime")
			Expect(r.Headers).To(BeEmpty())
		}
		Expect(seen).To(HaveLen(n))

		By("reading the same records through the harness's Kafka reader and the HTTP consume route")
		viaKafka := es.Records()
		Expect(viaKafka).To(fabrictest.HaveRecordCount(n))
		viaHTTP := es.Consume()
		Expect(viaHTTP).To(fabrictest.HaveRecordCount(n))
		Expect(columns(viaHTTP)).To(Equal(columns(viaKafka)))
		Expect(columns(viaKafka)).To(Equal(columnsOf(wire)))
	}, SpecTimeout(time.Minute))

	It("answers 404 ItemNotFound for a wrong item id, at resolve and at consume", func(ctx SpecContext) {
		bad := env.WithContext(ctx).EventstreamRef(es.WorkspaceID, wrongID, es.DatasourceID)

		_, err := bad.TryResolve()
		Expect(err).To(fabrictest.HaveErrorCode("ItemNotFound"))
		Expect(err.(*fabrictest.APIError).Status).To(Equal(404))
		Expect(err.(*fabrictest.APIError).RelatedResource.ResourceID).To(Equal(wrongID))

		_, err = bad.TryConsume()
		Expect(err).To(fabrictest.HaveErrorCode("ItemNotFound"))
		Expect(err.(*fabrictest.APIError).Status).To(Equal(404))

		_, err = bad.TryRecords()
		Expect(err).To(fabrictest.HaveErrorCode("ItemNotFound"), "the Kafka reader resolves first and never sees an empty stream")

		By("and the right ids still resolve")
		Expect(es.WithContext(ctx).Resolve().Topic).To(Equal(es.Topic))
	}, SpecTimeout(30*time.Second))

	It("refuses a produce from a Viewer with 403 and writes nothing", func(ctx SpecContext) {
		ws.WithContext(ctx).Grant("viewer", fabrictest.Viewer)
		viewer := es.WithContext(ctx).As("viewer")

		_, err := viewer.TryProduce(map[string]any{"order": 1})
		Expect(err).To(fabrictest.HaveErrorCode("InsufficientPrivileges"))
		Expect(err.(*fabrictest.APIError).Status).To(Equal(403))

		By("a Viewer still reads, and finds nothing was written")
		Expect(viewer.Consume()).To(fabrictest.HaveRecordCount(0))
		Expect(es.WithContext(ctx).Records()).To(fabrictest.HaveRecordCount(0))
	}, SpecTimeout(30*time.Second))

	// ---------------------------------------------------------------------
	// Lakehouse/Delta witness — goes here with issue 3 (Lakehouse items, the
	// bind route POST /v1/workspaces/{ws}/eventstreams/{id}/destinations and
	// the Delta writer). In the first It above, between "producing" and
	// "consuming": create a Lakehouse (ws.Lakehouse), bind it to es
	// (es.BindLakehouse(lh, table)), and after the produce (read-your-writes:
	// no wait needed) assert the Delta commit with the Delta matchers —
	// HaveCommits(1), HaveDeltaRows(12), HaveColumns("order", "amount",
	// "currency") — reading the table under the emulator's data dir
	// (fabrictest.WithDataDir) and, independently, with delta-rs.
	// ---------------------------------------------------------------------
})

// column is one record's Kafka columns, comparable across readers.
type column struct {
	Key, Value, Topic string
	Partition         int32
	Offset            int64
	TimestampMs       int64
}

func columns(rs fabrictest.Records) []column {
	out := make([]column, len(rs))
	for i, r := range rs {
		out[i] = column{string(r.Key), string(r.Value), r.Topic, r.Partition, r.Offset, r.Timestamp.UnixMilli()}
	}
	return sorted(out)
}

func columnsOf(rs []*kgo.Record) []column {
	out := make([]column, len(rs))
	for i, r := range rs {
		out[i] = column{string(r.Key), string(r.Value), r.Topic, r.Partition, r.Offset, r.Timestamp.UnixMilli()}
	}
	return sorted(out)
}

func sorted(cs []column) []column {
	sort.Slice(cs, func(i, j int) bool {
		if cs[i].Partition != cs[j].Partition {
			return cs[i].Partition < cs[j].Partition
		}
		return cs[i].Offset < cs[j].Offset
	})
	return cs
}
