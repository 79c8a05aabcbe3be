// Package broker is the emulator's Kafka adapter: it creates and deletes the
// topics behind Eventstreams, produces HTTP events into them and reads
// offset ranges back, through franz-go against one of three backends:
//
//   - embedded: franz-go's kfake, an in-process broker that speaks the Kafka
//     wire protocol on loopback. It is not Apache Kafka; it is fast and needs
//     nothing installed.
//   - external: any host:port list of a real cluster (Apache Kafka, the
//     fabrictest container, …).
//   - none: no broker at all; every data call returns ErrNoBroker.
package broker

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/fabrictest/fabrictest/emulator/internal/kafkaconfig"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
	"github.com/twmb/franz-go/pkg/kversion"
)

// ErrNoBroker is returned by data calls on a broker started with None.
var ErrNoBroker = errors.New("no Kafka broker attached")

// Broker is a connection to one Kafka backend. The zero value is not
// usable; construct one with Embedded, External or None.
type Broker struct {
	kind       string
	cluster    *kfake.Cluster // embedded only
	check      *batchCheck    // embedded only: its Produce check (checkBatches)
	seeds      []string
	client     *kgo.Client
	admin      *kadm.Client
	partitions int32
	replicas   int16       // WithReplicationFactor; 0: min(3, brokers)
	minInsync  int         // WithMinInsyncReplicas; 0: 2 with three brokers or more
	known      sync.Map    // topic → struct{}: topics known to exist
	leaders    sync.Map    // topic → map[int32]int32: partition leaders (listOffsetsDirect)
	fetchers   *clientPool // range reads (fetch.go)
	writer     *writer     // produce calls (produce.go, writer.go)
	health     health      // TopicHealth's answers
	// brokersSeen is the most brokers the cluster's metadata has listed.
	brokersSeen atomic.Int32
	security    kafkaconfig.Config // TLS and SASL of an external cluster
	log         *slog.Logger       // WithLogger; nil: none
}

// Option configures a Broker.
type Option func(*Broker)

// WithPartitions sets the partition count of topics the broker creates
// (default 4, like a Fabric custom endpoint's event hub).
func WithPartitions(n int32) Option {
	return func(b *Broker) {
		if n > 0 {
			b.partitions = n
		}
	}
}

// WithSecurity reaches an external cluster with the TLS and SASL settings
// of c (--kafka-config). Every client the broker makes uses them, and so do
// ClientOpts and Security for the emulator's other clients.
func WithSecurity(c kafkaconfig.Config) Option {
	return func(b *Broker) { b.security = c }
}

// WithLogger sets where the embedded broker logs the produce partitions it
// refuses (CheckCompressedBatches); default: nowhere.
func WithLogger(l *slog.Logger) Option {
	return func(b *Broker) { b.log = l }
}

// EmbeddedConfig configures the in-process broker.
type EmbeddedConfig struct {
	// Port is the loopback port to listen on; 0 picks a free one.
	Port int
	// DataDir, when set, persists the log there so records survive a restart.
	DataDir string
}

// Embedded starts an in-process kfake broker on 127.0.0.1. It refuses a
// compressed batch that does not decompress to its records, as Apache Kafka
// does (CheckCompressedBatches).
func Embedded(cfg EmbeddedConfig, opts ...Option) (*Broker, error) {
	// ApiVersions is capped at v2: from v3 on, kfake lists supported
	// features with a minimum version of 0, which the Java client (3.4,
	// the one Spark 3.5 ships) rejects, killing its admin thread. Apache
	// Kafka 3.9 leaves such features out for those clients; at v2 there are
	// no features at all, and every client retries at v2.
	versions := kversion.Stable()
	versions.SetMaxKeyVersion(int16(kmsg.ApiVersions), 2)
	kopts := []kfake.Opt{kfake.NumBrokers(1), kfake.Ports(cfg.Port), kfake.ClusterID("fabric-emulator"), kfake.DefaultNumPartitions(4), kfake.MaxVersions(versions)}
	if cfg.DataDir != "" {
		kopts = append(kopts, kfake.DataDir(cfg.DataDir))
	}
	c, err := kfake.NewCluster(kopts...)
	if err != nil {
		return nil, fmt.Errorf("start embedded kafka: %w", err)
	}
	b, err := connect("embedded", c.ListenAddrs(), opts)
	if err != nil {
		c.Close()
		return nil, err
	}
	b.cluster = c
	b.check = checkBatches(c, b.log)
	return b, nil
}

// External connects to a real cluster through the given bootstrap servers.
// Nothing is dialled until the first call.
func External(seeds []string, opts ...Option) (*Broker, error) {
	if len(seeds) == 0 {
		return nil, errors.New("connect kafka: no bootstrap servers")
	}
	return connect("external", seeds, opts)
}

// None returns a broker that has no Kafka behind it.
func None() *Broker { return &Broker{kind: "none"} }

// Parse builds a broker from the --kafka flag's forms: "embedded", "none"
// or a comma-separated host:port list.
func Parse(spec string, embedded EmbeddedConfig, opts ...Option) (*Broker, error) {
	switch s := strings.TrimSpace(spec); s {
	case "", "embedded":
		return Embedded(embedded, opts...)
	case "none":
		return None(), nil
	default:
		var seeds []string
		for _, h := range strings.Split(s, ",") {
			if h = strings.TrimSpace(h); h != "" {
				if !strings.Contains(h, ":") {
					return nil, fmt.Errorf("parse kafka bootstrap %q: want host:port", h)
				}
				seeds = append(seeds, h)
			}
		}
		return External(seeds, opts...)
	}
}

func connect(kind string, seeds []string, opts []Option) (*Broker, error) {
	b := &Broker{kind: kind, seeds: seeds, partitions: 4}
	for _, o := range opts {
		o(b)
	}
	if kind == "embedded" && b.security.Secured() {
		return nil, errors.New("connect kafka: security settings (--kafka-config) need an external cluster (--kafka host:port)")
	}
	cl, err := kgo.NewClient(append(b.ClientOpts(), kgo.RequestRetries(3))...)
	if err != nil {
		return nil, fmt.Errorf("connect kafka: %w", err)
	}
	b.client, b.admin = cl, kadm.NewClient(cl)
	b.fetchers = &clientPool{name: "fetch", opts: b.ClientOpts(), keep: fetchPoolIdle}
	b.writer, err = newWriter(b.ClientOpts(), b.trust)
	if err != nil {
		cl.Close()
		return nil, fmt.Errorf("connect kafka: %w", err)
	}
	return b, nil
}

// ClientOpts are the franz-go options that reach the cluster: its seeds
// and, for a secured cluster, TLS and SASL. Nil for None.
func (b *Broker) ClientOpts() []kgo.Opt {
	if !b.Enabled() {
		return nil
	}
	return append([]kgo.Opt{kgo.SeedBrokers(b.seeds...)}, b.security.Opts()...)
}

// Security is the cluster's TLS and SASL settings (PLAINTEXT when none).
func (b *Broker) Security() kafkaconfig.Config {
	if b.security.SecurityProtocol == "" {
		return kafkaconfig.Config{SecurityProtocol: kafkaconfig.Plaintext}
	}
	return b.security
}

// Probe asks a secured cluster for its metadata, so that a wrong password,
// an untrusted CA or the wrong protocol fails at start with an error naming
// the cause. It does nothing for the embedded broker, None, or a cluster
// reached in PLAINTEXT (which may start after the emulator).
func (b *Broker) Probe(ctx context.Context) error {
	if b.kind != "external" || !b.security.Secured() {
		return nil
	}
	return b.security.Probe(ctx, b.seeds)
}

// Kind is "embedded", "external" or "none".
func (b *Broker) Kind() string { return b.kind }

// Enabled reports whether a broker is attached.
func (b *Broker) Enabled() bool { return b.kind != "none" }

// Bootstrap returns the bootstrap servers clients should use.
func (b *Broker) Bootstrap() []string { return append([]string(nil), b.seeds...) }

// Close disconnects and, for the embedded broker, stops it.
func (b *Broker) Close() {
	if b.fetchers != nil {
		b.fetchers.close()
		b.writer.close()
	}
	if b.client != nil {
		b.client.Close()
	}
	if b.cluster != nil {
		b.cluster.Close()
	}
}

// CreateTopic creates topic with the broker's partition count. A topic that
// already exists is not an error.
func (b *Broker) CreateTopic(ctx context.Context, topic string) error {
	return b.CreateTopicPartitions(ctx, topic, 0)
}

// CreateTopicPartitions creates topic with n partitions (0: the broker's
// count). A topic that already exists is not an error, whatever its count.
func (b *Broker) CreateTopicPartitions(ctx context.Context, topic string, n int32) error {
	if !b.Enabled() {
		return ErrNoBroker
	}
	if n <= 0 {
		n = b.partitions
	}
	st, err := b.TopicSettings(ctx)
	if err != nil {
		return fmt.Errorf("create topic %s: %w", topic, err)
	}
	resp, err := b.admin.CreateTopic(ctx, n, st.Replicas, st.topicConfigs(), topic)
	if err == nil {
		err = resp.Err
	}
	if err != nil && !errors.Is(err, kerr.TopicAlreadyExists) {
		return fmt.Errorf("create topic %s: %w", topic, err)
	}
	// Apache Kafka answers CreateTopics before every partition has a
	// leader; wait until the topic serves offsets, so the first produce or
	// consume does not meet UNKNOWN_TOPIC_OR_PARTITION.
	for wait := 10 * time.Millisecond; ; wait = min(2*wait, 500*time.Millisecond) {
		ends, err := b.admin.ListEndOffsets(ctx, topic)
		if err == nil {
			err = ends.Error()
		}
		if err == nil {
			break
		}
		if !kerr.IsRetriable(err) && !errors.Is(err, kerr.UnknownTopicOrPartition) {
			return fmt.Errorf("wait for topic %s: %w", topic, err)
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("wait for topic %s: %w", topic, ctx.Err())
		case <-time.After(wait):
		}
	}
	b.known.Store(topic, struct{}{})
	return nil
}

// EnsureTopic creates topic unless this broker already knows it exists, so
// that an item created while no broker was attached still works later.
func (b *Broker) EnsureTopic(ctx context.Context, topic string) error {
	return b.EnsureTopicPartitions(ctx, topic, 0)
}

// EnsureTopicPartitions is EnsureTopic for a topic created with n
// partitions (0: the broker's count).
func (b *Broker) EnsureTopicPartitions(ctx context.Context, topic string, n int32) error {
	if _, ok := b.known.Load(topic); ok {
		return nil
	}
	return b.CreateTopicPartitions(ctx, topic, n)
}

// DeleteTopic deletes topic; a topic that does not exist is not an error.
func (b *Broker) DeleteTopic(ctx context.Context, topic string) error {
	if !b.Enabled() {
		return ErrNoBroker
	}
	b.known.Delete(topic)
	b.leaders.Delete(topic)
	b.writer.forget(topic)
	resp, err := b.admin.DeleteTopic(ctx, topic)
	if err == nil {
		err = resp.Err
	}
	if err != nil && !errors.Is(err, kerr.UnknownTopicOrPartition) {
		return fmt.Errorf("delete topic %s: %w", topic, err)
	}
	return nil
}
