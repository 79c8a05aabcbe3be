package fabrictest_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	. "github.com/onsi/gomega"

	"github.com/fabrictest/fabrictest/fabrictest"
)

// TestProduceShapes sends every kind of event the helpers offer and reads
// them back through both sides: the HTTP consume route and the Kafka
// protocol, which must agree on every column.
func TestProduceShapes(t *testing.T) {
	t.Parallel()
	g := NewWithT(t)
	env := fabrictest.Start(t)
	es := env.Workspace("sales").Eventstream("orders")
	g.Expect(es.Topic).To(Equal(es.ID + "." + es.DatasourceID))

	ts := time.Date(2026, 1, 2, 3, 4, 5, 678_000_000, time.UTC)
	res := es.Produce(
		fabrictest.Event{Key: "o-1", Value: map[string]any{"amount": 12.5}, Headers: []fabrictest.Header{{Key: "source", Value: []byte("test")}, {Key: "empty"}}, Timestamp: ts},
		"plain text",
		42,
		json.RawMessage(`{"raw": true}`),
	)
	g.Expect(res.Produced).To(Equal(4))
	g.Expect(res.Topic).To(Equal(es.Topic))
	g.Expect(res.Events).To(HaveLen(4))
	es.ProduceJSON("quoted", map[string]int{"b": 2, "a": 1})
	es.ProduceRaw([]byte("k"), []byte("raw bytes"), fabrictest.Header{Key: "h", Value: []byte("v")})
	es.ProduceRaw(nil, nil) // a tombstone without key

	want := []any{
		map[string]any{"amount": 12.5}, "plain text", 42, json.RawMessage(`{"raw":true}`),
		`"quoted"`, map[string]int{"a": 1, "b": 2}, "raw bytes", nil,
	}
	http := es.Consume()
	g.Expect(http).To(fabrictest.HaveRecordCount(8))
	g.Expect(http).To(fabrictest.HaveRecordsWithValues(want...))
	wire := es.Records()
	g.Expect(wire).To(fabrictest.HaveRecordsWithValues(want...))

	// Both sides see the same records, column for column.
	g.Expect(wire).To(HaveLen(len(http)))
	for i := range http {
		h, w := http[i], wire[i]
		g.Expect(w.Topic).To(Equal(es.Topic))
		g.Expect([]any{w.Partition, w.Offset, string(w.Key), w.Key == nil, string(w.Value), w.Value == nil, w.TimestampType}).
			To(Equal([]any{h.Partition, h.Offset, string(h.Key), h.Key == nil, string(h.Value), h.Value == nil, h.TimestampType}), "record %d", i)
		g.Expect(w.Timestamp.UnixMilli()).To(Equal(h.Timestamp.UnixMilli()))
		g.Expect(len(w.Headers)).To(Equal(len(h.Headers)))
	}

	// The keyed event kept its headers (a null header value stays null) and timestamp.
	var keyed fabrictest.Record
	for _, r := range wire {
		if string(r.Key) == "o-1" {
			keyed = r
		}
	}
	g.Expect(keyed.Timestamp.Equal(ts)).To(BeTrue(), "timestamp %s", keyed.Timestamp)
	v, ok := keyed.Header("source")
	g.Expect(ok).To(BeTrue())
	g.Expect(string(v)).To(Equal("test"))
	v, ok = keyed.Header("empty")
	g.Expect(ok).To(BeTrue())
	g.Expect(v).To(BeNil())
	var body struct{ Amount float64 }
	g.Expect(keyed.DecodeValue(&body)).To(Succeed())
	g.Expect(body.Amount).To(Equal(12.5))
}

func TestProduceRejectsBinaryBeforeSending(t *testing.T) {
	t.Parallel()
	env := fabrictest.Start(t)
	es := env.Workspace("ws").Eventstream("es")
	_, err := es.TryProduce(fabrictest.Event{Value: []byte{0xff, 0xfe}})
	if err == nil || !strings.Contains(err.Error(), "not valid UTF-8") {
		t.Fatalf("binary value: %v", err)
	}
	msg := failureOf(func(tb testing.TB) { fabrictest.WithT(es, tb).ProduceRaw(nil, []byte{0xc3}) })
	if !strings.Contains(msg, "not valid UTF-8") {
		t.Fatalf("ProduceRaw of binary: %q", msg)
	}
	NewWithT(t).Expect(es.Consume()).To(BeEmpty())
}

func TestConsumeOptions(t *testing.T) {
	t.Parallel()
	g := NewWithT(t)
	env := fabrictest.Start(t, fabrictest.WithPartitions(1))
	es := env.Workspace("ws").Eventstream("es")
	for i := range 5 {
		es.ProduceJSON(i)
	}
	g.Expect(es.Consume()).To(fabrictest.HaveRecordsWithValues(0, 1, 2, 3, 4))
	g.Expect(es.Consume(fabrictest.MaxRecords(2)).Values()).To(Equal([]string{"0", "1"}))
	g.Expect(es.Consume(fabrictest.StartingOffsets(`{"0":3}`)).Values()).To(Equal([]string{"3", "4"}))
	g.Expect(es.Consume(fabrictest.StartingOffsets("latest"))).To(BeEmpty())

	// An ending offset not written yet is waited for, up to ConsumeTimeout.
	go func() {
		time.Sleep(200 * time.Millisecond)
		es.ProduceJSON(5)
	}()
	got := es.Consume(fabrictest.StartingOffsets(`{"0":5}`), fabrictest.EndingOffsets(`{"0":6}`), fabrictest.ConsumeTimeout(5*time.Second))
	g.Expect(got.Values()).To(Equal([]string{"5"}))
}

// TestEventually shows the …Func and Try… forms inside Eventually: records
// produced in the background are waited for, bounded.
func TestEventually(t *testing.T) {
	t.Parallel()
	g := NewWithT(t)
	env := fabrictest.Start(t)
	es := env.Workspace("ws").Eventstream("es")
	go func() {
		for i := range 3 {
			time.Sleep(50 * time.Millisecond)
			es.ProduceJSON(map[string]int{"n": i})
		}
	}()
	g.Eventually(es.TryRecords).WithTimeout(10 * time.Second).WithPolling(50 * time.Millisecond).
		Should(fabrictest.HaveRecordCount(3))
	g.Eventually(es.ConsumeFunc()).WithTimeout(5 * time.Second).
		Should(fabrictest.HaveRecordsWithValues(map[string]int{"n": 0}, map[string]int{"n": 1}, map[string]int{"n": 2}))
}

func TestDelete(t *testing.T) {
	t.Parallel()
	env := fabrictest.Start(t)
	es := env.Workspace("ws").Eventstream("es")
	es.ProduceJSON(1)
	es.Delete()
	_, err := es.TryResolve()
	NewWithT(t).Expect(err).To(fabrictest.HaveErrorCode("ItemNotFound"))
}
