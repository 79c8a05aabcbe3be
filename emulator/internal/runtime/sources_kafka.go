package runtime

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"strings"
	"time"

	"github.com/fabrictest/fabrictest/emulator/internal/broker"

	"github.com/fabrictest/fabrictest/emulator/internal/drain"
	"github.com/fabrictest/fabrictest/emulator/internal/eventstream"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/sasl/plain"
	"github.com/twmb/franz-go/pkg/sasl/scram"
)

// Kafka-protocol sources copy a topic of another cluster (registered with
// PUT /v1/_emulator/connections/{dataConnectionId}) into the Eventstream's
// DefaultStream topic, keeping each record's key, value, headers and
// timestamp. The copy is at-least-once: the consumer group named by the
// source commits on its own cluster only after the records were produced
// here, so a crash or a pause between the two may copy records twice, never
// lose them. Where the group starts when it has no committed offset is
// autoOffsetReset: Earliest (the topic's start), Latest (its end when the
// source starts), None (the source fails until offsets are committed).

// KafkaSourceTypes are the Kafka-protocol source types the emulator runs.
var KafkaSourceTypes = eventstream.KafkaSourceTypes

// kafkaRetry is how long a failed Kafka source waits before trying again.
const kafkaRetry = time.Second

// kafkaProbeTimeout bounds the checks that the cluster answers and has the topic.
const kafkaProbeTimeout = 3 * time.Second

// KafkaSourceProps are a Kafka-protocol source's properties, as its
// definition was decoded when stored.
type KafkaSourceProps = eventstream.KafkaSource

// kafkaClientOpts are the options that reach the cluster of s: the
// connection's settings, with the source's securityProtocol and
// saslMechanism winning when given.
func kafkaClientOpts(s sourceSpec) ([]kgo.Opt, error) {
	c, k := *s.Conn, *s.Kafka
	proto := cmp.Or(k.SecurityProtocol, c.SecurityProtocol, "PLAINTEXT")
	opts := []kgo.Opt{kgo.SeedBrokers(strings.Split(c.BootstrapServers, ",")...), kgo.ClientID("fabric-emulator-source")}
	if strings.HasSuffix(proto, "SSL") {
		o, err := kafkaTLSOpt(k, c)
		if err != nil {
			return nil, err
		}
		opts = append(opts, o)
	}
	if strings.HasPrefix(proto, "SASL_") {
		switch mech := cmp.Or(k.SASLMechanism, c.SASLMechanism, "PLAIN"); mech {
		case "PLAIN":
			opts = append(opts, kgo.SASL(plain.Auth{User: c.Username, Pass: c.Password}.AsMechanism()))
		case "SCRAM-SHA-256":
			opts = append(opts, kgo.SASL(scram.Auth{User: c.Username, Pass: c.Password}.AsSha256Mechanism()))
		case "SCRAM-SHA-512":
			opts = append(opts, kgo.SASL(scram.Auth{User: c.Username, Pass: c.Password}.AsSha512Mechanism()))
		default:
			return nil, fmt.Errorf("sasl mechanism %q is not supported", mech)
		}
	}
	return opts, nil
}

// runKafka copies the source's topic until ctx ends, starting over after
// kafkaRetry whenever the cluster, the topic or the copy fails.
func (rt *Runtime) runKafka(ctx context.Context, run *sourceRunner, log *slog.Logger) {
	for {
		err := recovered(func() error { return rt.copyKafka(ctx, run) })
		if ctx.Err() != nil {
			return
		}
		if pe := (*drain.PanicError)(nil); errors.As(err, &pe) {
			log.Error("kafka source panicked; recovered", "topic", run.spec.Topic, "panic", fmt.Sprint(pe.Value), "stack", string(pe.Stack))
		}
		log.Warn("kafka source failed", "err", err)
		run.fail(err)
		select {
		case <-ctx.Done():
			return
		case <-time.After(kafkaRetry):
		}
	}
}

// copyKafka checks the cluster and topic, sets the group's start offsets
// where it has none, then consumes and copies until ctx ends or it fails.
func (rt *Runtime) copyKafka(ctx context.Context, run *sourceRunner) error {
	s := run.spec
	if s.ConnErr != "" {
		return errors.New(s.ConnErr)
	}
	base, err := kafkaClientOpts(s)
	if err != nil {
		return err
	}
	k, servers := *s.Kafka, s.Conn.BootstrapServers
	if err := startOffsets(ctx, base, k, servers); err != nil {
		return err
	}
	reset := kgo.NewOffset().AtEnd()
	switch k.AutoOffsetReset {
	case "Earliest":
		reset = kgo.NewOffset().AtStart()
	case "None":
		reset = kgo.NoResetOffset()
	}
	cl, err := kgo.NewClient(append(base,
		kgo.ConsumerGroup(k.ConsumerGroupName), kgo.ConsumeTopics(k.Topic), kgo.ConsumeResetOffset(reset),
		kgo.DisableAutoCommit(), kgo.BlockRebalanceOnPoll(), kgo.FetchMaxWait(500*time.Millisecond))...)
	if err != nil {
		return fmt.Errorf("connect to %s: %w", servers, err)
	}
	defer cl.Close()
	defer cl.AllowRebalance() // Close leaves the group, which a blocked rebalance would hold up
	run.ok()
	for {
		fetches := cl.PollFetches(ctx)
		if ctx.Err() != nil {
			return nil
		}
		if err := fetchError(fetches); err != nil {
			cl.AllowRebalance()
			return fmt.Errorf("consume %s from %s: %w", k.Topic, servers, err)
		}
		recs := fetches.Records()
		if len(recs) > 0 {
			if err := rt.copyRecords(ctx, run, recs); err != nil {
				cl.AllowRebalance()
				return err
			}
			if err := cl.CommitRecords(ctx, recs...); err != nil && ctx.Err() == nil {
				cl.AllowRebalance()
				return fmt.Errorf("commit offsets of group %s on %s: %w", k.ConsumerGroupName, servers, err)
			}
			run.ok()
		}
		cl.AllowRebalance()
	}
}

// fetchError is the first error of fetches that retrying will not cure.
func fetchError(fetches kgo.Fetches) error {
	for _, fe := range fetches.Errors() {
		if errors.Is(fe.Err, context.Canceled) || errors.Is(fe.Err, kgo.ErrClientClosed) {
			continue
		}
		if fe.Topic != "" {
			return fmt.Errorf("partition %d: %w", fe.Partition, fe.Err)
		}
		return fe.Err
	}
	return nil
}

// copyRecords produces recs into the DefaultStream topic, key, value,
// headers and timestamp kept, retrying until the broker takes them.
func (rt *Runtime) copyRecords(ctx context.Context, run *sourceRunner, recs []*kgo.Record) error {
	out := make([]*kgo.Record, len(recs))
	for i, r := range recs {
		out[i] = &kgo.Record{Key: r.Key, Value: r.Value, Headers: r.Headers, Timestamp: r.Timestamp}
	}
	for {
		pctx, cancel := context.WithTimeout(ctx, rt.cfg.ProduceTimeout)
		_, err := rt.cfg.Broker.Produce(pctx, run.spec.Topic, out)
		cancel()
		rt.countSource(err, run, out) // data insights
		if err == nil || ctx.Err() != nil {
			return ctx.Err()
		}
		run.fail(fmt.Errorf("produce into the Eventstream: %w", err))
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(kafkaRetry):
		}
		for _, r := range out { // a retried record is produced afresh
			r.Partition, r.Offset = 0, 0
		}
	}
}

// startOffsets checks that the cluster answers and has the topic, and
// commits the group's start offsets (per autoOffsetReset) on the partitions
// where it has none, so where the copy starts is settled before the source
// reports Running.
func startOffsets(ctx context.Context, base []kgo.Opt, k KafkaSourceProps, servers string) error {
	cl, err := kgo.NewClient(append(base, kgo.RequestRetries(1), kgo.RetryTimeout(kafkaProbeTimeout))...)
	if err != nil {
		return fmt.Errorf("connect to %s: %w", servers, err)
	}
	defer cl.Close()
	adm := kadm.NewClient(cl)
	ctx, cancel := context.WithTimeout(ctx, kafkaProbeTimeout)
	defer cancel()
	topics, err := adm.ListTopics(ctx, k.Topic)
	if err != nil {
		return fmt.Errorf("reach kafka cluster %s: %w", servers, unwrapDial(err))
	}
	td, ok := topics[k.Topic]
	if !ok || errors.Is(td.Err, kerr.UnknownTopicOrPartition) {
		return fmt.Errorf("topic %q does not exist on kafka cluster %s", k.Topic, servers)
	} else if td.Err != nil {
		return fmt.Errorf("describe topic %q on %s: %w", k.Topic, servers, td.Err)
	}
	var committed kadm.OffsetResponses
	err = broker.Retrying(ctx, func() error {
		var err error
		if committed, err = adm.FetchOffsetsForTopics(ctx, k.ConsumerGroupName, k.Topic); err == nil {
			err = committed.Error()
		}
		return err
	})
	if errors.Is(err, kerr.GroupIDNotFound) { // a new group (kfake says so; Apache Kafka answers empty)
		committed, err = nil, nil
	}
	if err != nil {
		return fmt.Errorf("fetch offsets of group %s on %s: %w", k.ConsumerGroupName, servers, err)
	}
	var missing []int32
	for _, p := range td.Partitions.Numbers() {
		if o, ok := committed.Lookup(k.Topic, p); !ok || o.At < 0 {
			missing = append(missing, p)
		}
	}
	if len(missing) == 0 {
		return nil
	}
	if k.AutoOffsetReset == "None" {
		return fmt.Errorf("consumer group %s has no committed offset on partitions %v of %s and autoOffsetReset is None", k.ConsumerGroupName, missing, k.Topic)
	}
	var listed kadm.ListedOffsets
	if k.AutoOffsetReset == "Earliest" {
		listed, err = adm.ListStartOffsets(ctx, k.Topic)
	} else {
		listed, err = adm.ListEndOffsets(ctx, k.Topic)
	}
	if err == nil {
		err = listed.Error()
	}
	if err != nil {
		return fmt.Errorf("list offsets of %s on %s: %w", k.Topic, servers, err)
	}
	offs := kadm.Offsets{}
	for _, p := range missing {
		if o, ok := listed.Lookup(k.Topic, p); ok {
			offs.AddOffset(k.Topic, p, o.Offset, -1)
		}
	}
	err = broker.Retrying(ctx, func() error {
		resp, err := adm.CommitOffsets(ctx, k.ConsumerGroupName, offs)
		if err == nil {
			err = resp.Error()
		}
		return err
	})
	if err != nil {
		return fmt.Errorf("commit start offsets of group %s on %s: %w", k.ConsumerGroupName, servers, err)
	}
	return nil
}

// unwrapDial shortens "unable to dial: dial tcp …: connection refused".
func unwrapDial(err error) error {
	var op *net.OpError
	if errors.As(err, &op) {
		return op
	}
	return err
}
