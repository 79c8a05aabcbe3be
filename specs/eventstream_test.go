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

	It("carries JSON from the Custom HTTP source to a Kafka consumer, with Kafka's schema, and to a Lakehouse as Delta", func(ctx SpecContext) {
		es := fabrictest.WithContext(es, ctx)

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

		By("binding a Lakehouse table to the Eventstream (before producing: a binding starts at the end of the topic)")
		lh := fabrictest.WithContext(ws, ctx).Lakehouse("witness_lh")
		dest := es.BindLakehouse(lh, "orders")
		Expect(dest.Type).To(Equal("Lakehouse"))
		Expect(dest.Table).To(Equal("orders"))

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

		By("finding them in the Lakehouse's Delta table, read with the Go reader (read-your-writes: no wait)")
		table := lh.Table("orders")
		Expect(table).To(fabrictest.HaveDeltaRows(n))
		Expect(table).To(fabrictest.HaveColumns("order", "amount", "currency"))
		wantRows := make([]map[string]any, 0, n)
		for _, v := range want {
			wantRows = append(wantRows, v)
		}
		snap := table.Snapshot()
		Expect(snap).To(fabrictest.HaveRowsMatching(wantRows...))
		Expect(snap.Schema.String()).To(Equal("struct<amount:double,currency:string,order:long>"),
			"integers are longs, fractions doubles, new columns in name order")

		By("checking the commits: each one batch of the destination under its txn, together every event once")
		// One produce is usually one commit, but not always: the
		// destination's consumer may fetch the four partitions' batches in
		// two polls (9 + 3 rows was seen), so the claim is exactly-once, not
		// one commit.
		Expect(snap.Commits).NotTo(BeEmpty())
		Expect(table).To(fabrictest.HaveVersion(int64(len(snap.Commits) - 1)))
		var added, lastTxn int64
		for _, c := range snap.Commits {
			Expect(c.Operation).To(Equal("STREAMING UPDATE"))
			Expect(c.Txns).To(ConsistOf(HaveField("AppID", dest.ID)), "commit v%d carries the destination's txn", c.Version)
			Expect(c.Txns[0].Version).To(BeNumerically(">", lastTxn), "txn versions grow")
			lastTxn = c.Txns[0].Version
			added += c.AddedRows
		}
		Expect(added).To(BeEquivalentTo(n))
		Expect(snap.Txns).To(Equal(map[string]int64{dest.ID: lastTxn}))

		By("reading the same table with delta-rs, a Delta reader nobody here wrote")
		rs := deltaRS(ctx, table.Dir)
		Expect(rs.Version).To(Equal(snap.Version))
		Expect(rs.Operations).To(HaveLen(len(snap.Commits)))
		Expect(rs.Columns).To(Equal(snap.Schema.Names()))
		Expect(fabrictest.Rows(rs.Rows)).To(fabrictest.HaveRowsMatching(wantRows...))

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
		bad := env.WithContext(ctx).WorkspaceRef(es.WorkspaceID).EventstreamRef(wrongID, es.DatasourceID)

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
		Expect(fabrictest.WithContext(es, ctx).Resolve().Topic).To(Equal(es.Topic))
	}, SpecTimeout(30*time.Second))

	It("refuses a produce from a Viewer with 403 and writes nothing", func(ctx SpecContext) {
		fabrictest.WithContext(ws, ctx).Grant("viewer", fabrictest.Viewer)
		viewer := fabrictest.As(fabrictest.WithContext(es, ctx), "viewer")

		_, err := viewer.TryProduce(map[string]any{"order": 1})
		Expect(err).To(fabrictest.HaveErrorCode("InsufficientPrivileges"))
		Expect(err.(*fabrictest.APIError).Status).To(Equal(403))

		By("a Viewer still reads, and finds nothing was written")
		Expect(viewer.Consume()).To(fabrictest.HaveRecordCount(0))
		Expect(fabrictest.WithContext(es, ctx).Records()).To(fabrictest.HaveRecordCount(0))
	}, SpecTimeout(30*time.Second))

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
