package emulator_test

import (
	"context"
	"crypto/tls"
	"log/slog"
	"net"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/messaging/azeventhubs"
	"github.com/fabrictest/fabrictest/emulator"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/sasl/plain"
)

// endpointOf is the host[:port] of a connection string's Endpoint.
func endpointOf(t *testing.T, conn string) string {
	t.Helper()
	for _, p := range strings.Split(conn, ";") {
		if name, v, _ := strings.Cut(p, "="); strings.EqualFold(name, "Endpoint") {
			return strings.TrimSuffix(strings.TrimPrefix(v, "sb://"), "/")
		}
	}
	t.Fatalf("no Endpoint in %q", conn)
	return ""
}

// TestOnePortForBothProtocols: on free ports, the Endpoint of a custom
// endpoint's connection string names the Kafka endpoint, which takes the
// Event Hubs SDK's AMQP as well: azeventhubs with the string, unchanged,
// and franz-go bootstrapped at the host:port read from Endpoint exchange
// events both ways, with and without TLS.
func TestOnePortForBothProtocols(t *testing.T) {
	t.Run("plain", func(t *testing.T) { onePort(t, deployEndpoint(t), nil) })
	t.Run("tls", func(t *testing.T) {
		e := startTLSEnv(t, emulator.WithTLS())
		onePort(t, deployEndpointIn(e.testEnv), &tls.Config{RootCAs: e.srv.CertPool(), ServerName: "localhost"})
	})
}

func onePort(t *testing.T, f endpointFixture, tc *tls.Config) {
	ctx := ehContext(t)
	src := f.connection("GET", "/sources/"+f.src+"/connection", nil)
	dst := f.connection("GET", "/destinations/"+f.out+"/connection", nil)
	ep := endpointOf(t, src.AccessKeys.PrimaryConnectionString)
	if ep != src.FullyQualifiedNamespace || ep != f.e.srv.KafkaEndpoint() || ep == f.e.srv.AMQPEndpoint() {
		t.Fatalf("Endpoint %s, fullyQualifiedNamespace %s, Kafka endpoint %s, AMQP listener %s: want Endpoint on the Kafka endpoint",
			ep, src.FullyQualifiedNamespace, f.e.srv.KafkaEndpoint(), f.e.srv.AMQPEndpoint())
	}

	p, err := azeventhubs.NewProducerClientFromConnectionString(src.AccessKeys.PrimaryConnectionString, "",
		&azeventhubs.ProducerClientOptions{TLSConfig: tc, RetryOptions: azeventhubs.RetryOptions{MaxRetries: -1}})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close(ctx)
	key := "k"
	if err := ehSend(ctx, p, &azeventhubs.EventDataBatchOptions{PartitionKey: &key}, nil, `{"via":"amqp"}`); err != nil {
		t.Fatalf("azeventhubs send on the Kafka endpoint: %v", err)
	}
	kafka := func(conn string, opts ...kgo.Opt) *kgo.Client {
		base := []kgo.Opt{kgo.SeedBrokers(ep), kgo.RequestRetries(0), kgo.RecordDeliveryTimeout(10 * time.Second),
			kgo.SASL(plain.Auth{User: "$ConnectionString", Pass: conn}.AsMechanism())}
		if tc != nil {
			base = append(base, kgo.DialTLSConfig(tc))
		}
		cl, err := kgo.NewClient(append(base, opts...)...)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(cl.Close)
		return cl
	}
	kp := kafka(src.AccessKeys.PrimaryConnectionString, kgo.DefaultProduceTopic(src.EventHubName))
	if err := kp.ProduceSync(ctx, &kgo.Record{Key: []byte(key), Value: []byte(`{"via":"kafka"}`)}).FirstErr(); err != nil {
		t.Fatalf("franz-go produce at Endpoint's host:port: %v", err)
	}

	kc := kafka(dst.AccessKeys.PrimaryConnectionString, kgo.ConsumeTopics(dst.EventHubName),
		kgo.ConsumerGroup("one-port"), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	var viaKafka []string
	for len(viaKafka) < 2 {
		fs := kc.PollFetches(ctx)
		if err := fs.Err0(); err != nil {
			t.Fatalf("franz-go fetch at Endpoint's host:port after %v: %v", viaKafka, err)
		}
		fs.EachRecord(func(r *kgo.Record) { viaKafka = append(viaKafka, string(r.Value)) })
	}

	cc, err := azeventhubs.NewConsumerClientFromConnectionString(dst.AccessKeys.PrimaryConnectionString, "",
		azeventhubs.DefaultConsumerGroup, &azeventhubs.ConsumerClientOptions{TLSConfig: tc})
	if err != nil {
		t.Fatal(err)
	}
	defer cc.Close(ctx)
	var viaAMQP []string
	props, err := cc.GetEventHubProperties(ctx, nil)
	if err != nil {
		t.Fatalf("azeventhubs consumer on the Kafka endpoint: %v", err)
	}
	for _, id := range props.PartitionIDs {
		pc, err := cc.NewPartitionClient(id, &azeventhubs.PartitionClientOptions{StartPosition: azeventhubs.StartPosition{Earliest: to(true)}})
		if err != nil {
			t.Fatal(err)
		}
		rctx, cancel := context.WithTimeout(ctx, time.Second)
		evs, _ := pc.ReceiveEvents(rctx, 10, nil)
		cancel()
		pc.Close(ctx)
		for _, ev := range evs {
			viaAMQP = append(viaAMQP, string(ev.Body))
		}
	}
	want := []string{`{"via":"amqp"}`, `{"via":"kafka"}`}
	slices.Sort(viaKafka)
	slices.Sort(viaAMQP)
	if !slices.Equal(viaKafka, want) || !slices.Equal(viaAMQP, want) {
		t.Fatalf("franz-go read %q, azeventhubs read %q; want %q each", viaKafka, viaAMQP, want)
	}
}

// TestOnePortEndpointRule: Endpoint names the Kafka endpoint's host:port
// (which takes AMQP too) while the Event Hubs endpoint is on a free port
// and not advertised, so it agrees with the namespace; the host alone once
// AMQP is on its default port 5672; and with Kafka on 9093 too, both are
// the host alone, Fabric's shape.
func TestOnePortEndpointRule(t *testing.T) {
	f := deployEndpoint(t)
	e := f.e
	conn := func() (string, string) {
		c := f.connection("GET", "/sources/"+f.src+"/connection", nil)
		return endpointOf(t, c.AccessKeys.PrimaryConnectionString), c.FullyQualifiedNamespace
	}
	kafka := e.srv.KafkaEndpoint()
	if ep, ns := conn(); ep != kafka || ns != ep {
		t.Errorf("both on free ports: Endpoint %s, namespace %s; want both %s", ep, ns, kafka)
	}
	e.must(200, e.callAs("", "POST", "/_emulator/amqp-endpoint", map[string]any{"advertised": "127.0.0.1:5672"}))
	if ep, ns := conn(); ep != "127.0.0.1" || ns != kafka {
		t.Errorf("AMQP on 5672: Endpoint %s, namespace %s; want the host alone and %s", ep, ns, kafka)
	}
	e.must(200, e.callAs("", "POST", "/_emulator/kafka-endpoint", map[string]any{"advertised": "127.0.0.1:9093"}))
	if ep, ns := conn(); ep != "127.0.0.1" || ns != "127.0.0.1" {
		t.Errorf("AMQP on 5672, Kafka on 9093: Endpoint %s, namespace %s; want the host alone", ep, ns)
	}
}

// TestKafkaEndpointRefusesGarbageAndAMQPWhenOff: bytes that are neither a
// Kafka request nor the AMQP header close the connection with a log line;
// an AMQP client is refused with one when the Event Hubs door is off.
func TestKafkaEndpointRefusesGarbageAndAMQPWhenOff(t *testing.T) {
	logs := &logBuffer{}
	logger := slog.New(slog.NewTextHandler(logs, nil))
	on := startEnv(t, emulator.WithLogger(logger))
	off := startEnv(t, emulator.WithLogger(logger), emulator.WithAMQPEndpoint("off"))
	for _, c := range []struct {
		addr, send, log string
	}{
		{on.srv.KafkaEndpoint(), "AMQX\x00\x01\x00\x00garbage", "neither a Kafka request nor an AMQP header"},
		{off.srv.KafkaEndpoint(), "AMQP\x03\x01\x00\x00", "an AMQP client on the Kafka endpoint while the Event Hubs endpoint is off"},
	} {
		nc, err := net.Dial("tcp", c.addr)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := nc.Write([]byte(c.send)); err != nil {
			t.Fatal(err)
		}
		_ = nc.SetReadDeadline(time.Now().Add(5 * time.Second))
		n, err := nc.Read(make([]byte, 64))
		nc.Close()
		if n != 0 || err == nil || strings.Contains(err.Error(), "timeout") {
			t.Errorf("%q: read %d bytes, %v; want the connection closed", c.send, n, err)
		}
		waitFor(t, 5*time.Second, "the log line "+c.log, func() bool { return len(logs.lines(c.log)) > 0 })
	}
}
