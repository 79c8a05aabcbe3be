package eventhubs

import (
	"context"
	"fmt"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/messaging/azeventhubs"
	goamqp "github.com/Azure/go-amqp"
)

// benchBatch encodes n small JSON events as an Event Hubs batch message.
func benchBatch(b *testing.B, n int) *goamqp.Message {
	outer := &goamqp.Message{Format: 0x80013700, Annotations: goamqp.Annotations{"x-opt-partition-key": "k"}}
	for i := range n {
		inner := goamqp.NewMessage([]byte(fmt.Sprintf(`{"device":"d-%d","temperature":%d.5}`, i%10, i%40)))
		inner.ApplicationProperties = map[string]any{"source": "bench"}
		enc, err := inner.MarshalBinary()
		if err != nil {
			b.Fatal(err)
		}
		outer.Data = append(outer.Data, enc)
	}
	return outer
}

// BenchmarkSendBatch1000 sends 1,000-event batches through the door to
// the in-memory host, one unsettled delivery at a time.
func BenchmarkSendBatch1000(b *testing.B) {
	ts := startServer(b, Options{})
	c := dialBench(b, ts)
	s, err := c.NewSession(context.Background(), nil)
	if err != nil {
		b.Fatal(err)
	}
	snd, err := s.NewSender(context.Background(), "es/Partitions/0", nil)
	if err != nil {
		b.Fatal(err)
	}
	msg := benchBatch(b, 1000)
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		if err := snd.Send(context.Background(), msg, nil); err != nil {
			b.Fatal(err)
		}
		ts.host.mu.Lock()
		ts.host.hubs["es"].parts[0], ts.host.sends = nil, nil
		ts.host.mu.Unlock()
	}
	b.ReportMetric(float64(b.N*1000)/b.Elapsed().Seconds(), "events/s")
}

// BenchmarkSDKSendBatch1000 sends 1,000-event batches with azeventhubs,
// unchanged, through the door to the in-memory host: the SDK's own cost
// (its batch building and encoding) and the door's, with no broker. `make
// bench` sets it beside the Kafka endpoint's produce of the same events
// (EventHubsRatio/send): the most the Event Hubs send can reach beside it.
func BenchmarkSDKSendBatch1000(b *testing.B) {
	ts := startServer(b, Options{})
	p, err := azeventhubs.NewProducerClientFromConnectionString(ts.connString("key_x", testKey), "", nil)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { p.Close(context.Background()) })
	values := make([][]byte, 1000)
	for i := range values {
		values[i] = fmt.Appendf(nil, `{"deviceId":"sensor-%04d","seq":%d,"temperature":%.2f,"humidity":%.1f,"status":"ok","ts":%d}`,
			i%100, i, 18+float64(i%700)/100, 40+float64(i%300)/10, 1_700_000_000_000+int64(i))
	}
	pid := "0"
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		batch, err := p.NewEventDataBatch(context.Background(), &azeventhubs.EventDataBatchOptions{PartitionID: &pid})
		if err != nil {
			b.Fatal(err)
		}
		for _, v := range values {
			if err := batch.AddEventData(&azeventhubs.EventData{Body: v}, nil); err != nil {
				b.Fatal(err)
			}
		}
		if err := p.SendEventDataBatch(context.Background(), batch, nil); err != nil {
			b.Fatal(err)
		}
		ts.host.mu.Lock()
		ts.host.hubs["es"].parts[0], ts.host.sends = nil, nil
		ts.host.mu.Unlock()
	}
	b.ReportMetric(float64(b.N*len(values))/b.Elapsed().Seconds(), "events/s")
}

// BenchmarkReceive receives events with 1,000 credits.
func BenchmarkReceive(b *testing.B) {
	ts := startServer(b, Options{})
	evs := make([]Event, b.N)
	for i := range evs {
		evs[i] = Event{Body: []byte(fmt.Sprintf(`{"device":"d-%d","temperature":%d.5}`, i%10, i%40))}
	}
	ts.host.Send(context.Background(), Grant{}, "es", 0, evs)
	c := dialBench(b, ts)
	s, err := c.NewSession(context.Background(), nil)
	if err != nil {
		b.Fatal(err)
	}
	r, err := s.NewReceiver(context.Background(), "es/ConsumerGroups/$Default/Partitions/0", &goamqp.ReceiverOptions{
		Credit: 1000, Filters: []goamqp.LinkFilter{goamqp.NewSelectorFilter("amqp.annotation.x-opt-offset > '-1'")},
	})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		if _, err := r.Receive(context.Background(), nil); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "events/s")
}

// dialBench connects with SASL PLAIN.
func dialBench(b *testing.B, ts *testServer) *goamqp.Conn {
	c, err := goamqp.Dial(context.Background(), "amqp://"+ts.addr, &goamqp.ConnOptions{SASLType: plain()})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { c.Close() })
	return c
}
