//go:build container

package specs_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/fabrictest/fabrictest/emulator"
	"github.com/fabrictest/fabrictest/fabrictest"
	"github.com/fabrictest/fabrictest/fixtures/kafka"
)

// produceTimeout bounds how long the emulator waits for the cluster to
// acknowledge a produce before answering 502 KafkaUnavailable.
const produceTimeout = 8 * time.Second

// Microsoft documents no behaviour for the Kafka cluster behind an
// Eventstream losing brokers (it is Fabric's own); these specs hold the
// emulator to what an Apache Kafka cluster with acks=all and
// min.insync.replicas=2 promises: nothing acknowledged is lost or written
// twice, and a write is refused only when too few replicas are in sync.
var _ = Describe("An Eventstream on a three-broker Apache Kafka cluster", Label("kafka", "container", "cluster"), func() {
	It("delivers every acknowledged event exactly once while a broker is lost and comes back, and refuses writes only when two are down", func(ctx SpecContext) {
		began := time.Now()
		env := fabrictest.Start(GinkgoTB(), fabrictest.WithKafkaCluster(3), fabrictest.WithStartupTimeout(5*time.Minute),
			fabrictest.WithEmulatorOptions(emulator.WithProduceTimeout(produceTimeout)))
		cluster := env.KafkaCluster()
		Expect(cluster).NotTo(BeNil())
		Expect(cluster.Nodes).To(HaveLen(3))
		GinkgoWriter.Printf("cluster of 3 and emulator up in %s\n", time.Since(began).Round(time.Millisecond))

		ws := fabrictest.WithContext(env.Workspace("cluster"), ctx)
		es := ws.Eventstream("payments")
		lh := ws.Lakehouse("cluster_lh")
		dest := es.BindLakehouse(lh, "payments")
		src := es.Resolve()
		Expect(src.Brokers()).To(ConsistOf(cluster.Brokers()))

		By("creating the topic with three replicas and min.insync.replicas=2")
		expectReplication(ctx, src.Brokers(), src.Topic)

		By("producing continuously through the Custom HTTP source and a franz-go producer")
		cl, err := kgo.NewClient(kgo.SeedBrokers(src.Brokers()...), kgo.DefaultProduceTopic(src.Topic))
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(cl.Close)
		ledger := newLedger()
		stop := make(chan struct{})
		var wg sync.WaitGroup
		wg.Add(2)
		go func() { defer GinkgoRecover(); defer wg.Done(); produceHTTP(es, ledger, stop) }()
		go func() { defer GinkgoRecover(); defer wg.Done(); produceKafka(cl, ledger, stop) }()
		stopProducers := sync.OnceFunc(func() { close(stop); wg.Wait() })
		DeferCleanup(stopProducers)
		Eventually(ledger.acked).WithTimeout(30 * time.Second).Should(BeNumerically(">=", 100))

		By("stopping broker 2: every produce is still acknowledged")
		one := cluster.Nodes[1]
		stopNode(ctx, one)
		mark := ledger.snapshot()
		time.Sleep(8 * time.Second)
		during := ledger.snapshot().since(mark)
		Expect(during.refused).To(BeZero(), "a produce was refused with one broker of three down: %v", ledger.lastError())
		Expect(during.acked).To(BeNumerically(">", 50), "produces went on while broker 2 was down")
		Expect(during.httpAcked).To(BeNumerically(">", 0), "HTTP produces went on while broker 2 was down")

		By("stopping broker 3 too: the cluster cannot take an acks=all write, and the produce route says so in bounded time")
		two := cluster.Nodes[2]
		stopNode(ctx, two)
		var refusal *fabrictest.APIError
		var refusedIn time.Duration
		probes := 0
		probe := func() error {
			t0 := time.Now()
			probes++
			_, err := es.TryProduce(fabrictest.Event{Key: "probe", Value: map[string]any{"src": "probe", "seq": probes}})
			refusedIn = time.Since(t0)
			return err
		}
		Eventually(probe).WithTimeout(time.Minute).Should(MatchError(ContainSubstring("KafkaUnavailable")))
		err = probe()
		Expect(errors.As(err, &refusal)).To(BeTrue(), "produce with two brokers down: %v", err)
		Expect(refusal.Status).To(Equal(502))
		Expect(refusal.ErrorCode).To(BeEquivalentTo("KafkaUnavailable"))
		Expect(refusedIn).To(BeNumerically("<", produceTimeout+5*time.Second), "the refusal comes within the produce timeout")

		By("showing the outage in the destination's status")
		Eventually(func() string { return dest.Refresh().Status }).WithTimeout(time.Minute).Should(Equal("Warning"))
		Expect(dest.Refresh().Delivery.LastKafkaError).NotTo(BeEmpty())
		Eventually(func() *fabrictest.NodeError { return topologyNode(es, dest.ID).Error }).WithTimeout(30*time.Second).
			Should(HaveField("ErrorCode", BeEquivalentTo("KafkaUnavailable")), "the topology's destination node")
		Expect(topologyNode(es, dest.ID).Status).To(Equal("Warning"))

		By("starting brokers 2 and 3 again")
		restarted := time.Now()
		startNodes(ctx, one, two)
		ready := time.Now()
		mark = ledger.snapshot()
		Eventually(func() int { return ledger.snapshot().since(mark).httpAcked }).WithTimeout(2 * time.Minute).Should(BeNumerically(">", 0))
		produceBack := time.Since(ready)
		Eventually(func() string { return dest.Refresh().Status }).WithTimeout(2 * time.Minute).Should(Equal("Running"))
		statusBack := time.Since(ready)
		time.Sleep(3 * time.Second)
		stopProducers()

		By("finding every acknowledged event exactly once in the consume route and in the Lakehouse")
		end := ledger.snapshot()
		var topic map[string]int
		Eventually(func() (int, error) {
			rs, err := es.TryConsume(fabrictest.MaxRecords(1_000_000), fabrictest.ConsumeTimeout(20*time.Second))
			topic = countKeys(rs)
			return len(rs), err
		}).WithTimeout(time.Minute).Should(BeNumerically(">=", end.acked))
		expectExactlyOnce("the consume route", topic, ledger)

		table := lh.Table("payments")
		total := sum(topic)
		Eventually(func() int { return len(table.Rows()) }).WithTimeout(2 * time.Minute).Should(Equal(total))
		delivered := time.Since(ready)
		lake := countRows(deltaRS(ctx, table.Dir).Rows)
		expectExactlyOnce("the Delta table (delta-rs)", lake, ledger)
		Expect(lake).To(Equal(topic), "the table holds what the topic holds, no more")

		figures := fmt.Sprintf("acknowledged %d (HTTP %d, Kafka client %d); refused %d (HTTP 502 %d); in the topic %d, in the table %d, duplicates %d; "+
			"502 in %s; brokers ready %s after Start, then produce back in %s, status Running in %s, every event in the table in %s; spec %s",
			end.acked, end.httpAcked, end.acked-end.httpAcked, end.refused, end.httpRefused, total, sum(lake), duplicates(lake),
			refusedIn.Round(time.Millisecond), ready.Sub(restarted).Round(time.Millisecond), produceBack.Round(time.Millisecond),
			statusBack.Round(time.Millisecond), delivered.Round(time.Millisecond), time.Since(began).Round(time.Second))
		AddReportEntry("broker loss", figures)
		GinkgoWriter.Println("broker loss:", figures)
	})
})

// expectReplication checks the topic's replicas and min.insync.replicas.
func expectReplication(ctx context.Context, brokers []string, topic string) {
	GinkgoHelper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(brokers...))
	Expect(err).NotTo(HaveOccurred())
	defer cl.Close()
	adm := kadm.NewClient(cl)
	md, err := adm.Metadata(ctx, topic)
	Expect(err).NotTo(HaveOccurred())
	for _, p := range md.Topics[topic].Partitions {
		Expect(p.Replicas).To(HaveLen(3), "partition %d", p.Partition)
	}
	rcs, err := adm.DescribeTopicConfigs(ctx, topic)
	Expect(err).NotTo(HaveOccurred())
	rc, err := rcs.On(topic, nil)
	Expect(err).NotTo(HaveOccurred())
	var minISR string
	for _, c := range rc.Configs {
		if c.Key == "min.insync.replicas" && c.Value != nil {
			minISR = *c.Value
		}
	}
	Expect(minISR).To(Equal("2"))
}

func stopNode(ctx context.Context, n *kafka.Node) {
	GinkgoHelper()
	timeout := 10 * time.Second
	Expect(n.Stop(ctx, &timeout)).To(Succeed(), "stop broker %d", n.ID)
}

// startNodes starts the nodes at once (a KRaft quorum needs two of three).
func startNodes(ctx context.Context, nodes ...*kafka.Node) {
	GinkgoHelper()
	errs := make([]error, len(nodes))
	var wg sync.WaitGroup
	for i, n := range nodes {
		wg.Add(1)
		go func() { defer wg.Done(); errs[i] = n.Start(ctx) }()
	}
	wg.Wait()
	Expect(errors.Join(errs...)).NotTo(HaveOccurred())
}

// produceHTTP sends batches of 10 events through the Custom HTTP source
// until stop. A 200 acknowledges the batch; a 502 KafkaUnavailable refuses
// it; a 502 or 504 naming the destination says Kafka took the batch (the
// destination had not delivered it yet), so it is acknowledged too.
func produceHTTP(es fabrictest.Eventstream, l *ledger, stop <-chan struct{}) {
	for seq := 0; ; seq += 10 {
		select {
		case <-stop:
			return
		default:
		}
		events, keys := batch("http", seq)
		_, err := es.TryProduce(events...)
		var ae *fabrictest.APIError
		switch {
		case err == nil:
			l.ack(true, keys)
		case errors.As(err, &ae) && (ae.ErrorCode == "DestinationTimeout" || ae.ErrorCode == "DestinationFailed"):
			l.ack(true, keys)
		default:
			l.refuse(true, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// produceKafka sends batches of 10 records with a franz-go producer
// (acks=all, idempotent: its defaults) until stop, each batch bounded by
// the same timeout as the produce route.
func produceKafka(cl *kgo.Client, l *ledger, stop <-chan struct{}) {
	for seq := 0; ; seq += 10 {
		select {
		case <-stop:
			return
		default:
		}
		events, keys := batch("kafka", seq)
		recs := make([]*kgo.Record, len(events))
		for i, ev := range events {
			e := ev.(fabrictest.Event)
			v, _ := json.Marshal(e.Value)
			recs[i] = &kgo.Record{Key: []byte(e.Key.(string)), Value: v}
		}
		ctx, cancel := context.WithTimeout(context.Background(), produceTimeout)
		err := cl.ProduceSync(ctx, recs...).FirstErr()
		cancel()
		if err == nil {
			l.ack(false, keys)
		} else {
			l.refuse(false, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// batch makes 10 events of src from seq on, keyed src-seq.
func batch(src string, seq int) ([]any, []string) {
	events, keys := make([]any, 10), make([]string, 10)
	for i := range events {
		keys[i] = fmt.Sprintf("%s-%d", src, seq+i)
		events[i] = fabrictest.Event{Key: keys[i], Value: map[string]any{"src": src, "seq": seq + i}}
	}
	return events, keys
}

// ledger is what the producers were told.
type ledger struct {
	mu      sync.Mutex
	keys    map[string]bool // acknowledged
	counts  counts
	lastErr atomic.Value
}

type counts struct{ acked, httpAcked, refused, httpRefused int }

func (c counts) since(o counts) counts {
	return counts{c.acked - o.acked, c.httpAcked - o.httpAcked, c.refused - o.refused, c.httpRefused - o.httpRefused}
}

func newLedger() *ledger { return &ledger{keys: map[string]bool{}} }

func (l *ledger) ack(http bool, keys []string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, k := range keys {
		l.keys[k] = true
	}
	l.counts.acked += len(keys)
	if http {
		l.counts.httpAcked += len(keys)
	}
}

func (l *ledger) refuse(http bool, err error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.counts.refused += 10
	if http {
		l.counts.httpRefused += 10
	}
	l.lastErr.Store(err.Error())
}

func (l *ledger) snapshot() counts { l.mu.Lock(); defer l.mu.Unlock(); return l.counts }
func (l *ledger) acked() int       { return l.snapshot().acked }
func (l *ledger) lastError() any   { return l.lastErr.Load() }

// expectExactlyOnce checks that every acknowledged key is in got once and
// that no key is there twice.
func expectExactlyOnce(where string, got map[string]int, l *ledger) {
	GinkgoHelper()
	l.mu.Lock()
	defer l.mu.Unlock()
	var missing []string
	for k := range l.keys {
		if got[k] == 0 {
			missing = append(missing, k)
		}
	}
	Expect(missing).To(BeEmpty(), "acknowledged events missing from %s", where)
	Expect(duplicates(got)).To(BeZero(), "events written twice in %s", where)
}

func countKeys(rs fabrictest.Records) map[string]int {
	out := map[string]int{}
	for _, r := range rs {
		var v struct {
			Src string `json:"src"`
			Seq int    `json:"seq"`
		}
		if json.Unmarshal(r.Value, &v) == nil {
			out[fmt.Sprintf("%s-%d", v.Src, v.Seq)]++
		}
	}
	return out
}

func countRows(rows []map[string]any) map[string]int {
	out := map[string]int{}
	for _, r := range rows {
		out[fmt.Sprintf("%v-%v", r["src"], r["seq"])]++
	}
	return out
}

func sum(m map[string]int) int {
	n := 0
	for _, c := range m {
		n += c
	}
	return n
}

func duplicates(m map[string]int) int {
	n := 0
	for _, c := range m {
		n += c - 1
	}
	return n
}

// topologyNode is destination id's node in the Eventstream's topology.
func topologyNode(es fabrictest.Eventstream, id string) fabrictest.Node {
	GinkgoHelper()
	for _, n := range es.Topology().Destinations {
		if n.ID == id {
			return n
		}
	}
	Fail("no destination node " + id + " in the topology")
	return fabrictest.Node{}
}
