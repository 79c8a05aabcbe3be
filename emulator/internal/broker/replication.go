package broker

import (
	"context"
	"fmt"
	"strconv"

	"github.com/twmb/franz-go/pkg/kgo"
)

// Replication defaults of the topics the broker creates, for a cluster of
// n brokers (unless WithReplicationFactor or WithMinInsyncReplicas says
// otherwise): min(3, n) replicas, and min.insync.replicas 2 once there are
// three or more, so that an acks=all write survives one broker lost and is
// refused, rather than kept on one copy, when two are. Fewer brokers keep
// the cluster's own min.insync.replicas (1 by default).
const (
	maxDefaultReplicas = 3
	defaultMinInsync   = 2
)

// producerAcks is what the emulator's producer asks of the cluster: every
// in-sync replica acknowledges a write (acks=all) before it is reported
// produced. franz-go's default is the same, with idempotence on (so a
// retried batch is written once); it is set explicitly so that it cannot
// change under us.
func producerAcks() kgo.Opt { return kgo.RequiredAcks(kgo.AllISRAcks()) }

// WithReplicationFactor sets the replication factor of the topics the
// broker creates, overriding min(3, brokers in the cluster); 0 keeps the
// default.
func WithReplicationFactor(n int16) Option {
	return func(b *Broker) {
		if n > 0 {
			b.replicas = n
		}
	}
}

// WithMinInsyncReplicas sets the min.insync.replicas of the topics the
// broker creates, overriding 2 on clusters of three brokers or more (the
// cluster's own setting on smaller ones); 0 keeps the default.
func WithMinInsyncReplicas(n int) Option {
	return func(b *Broker) {
		if n > 0 {
			b.minInsync = n
		}
	}
}

// TopicSettings is how the broker creates topics: Replicas copies of each
// partition, and MinInsync the topic's min.insync.replicas (0: the
// cluster's own).
type TopicSettings struct {
	Replicas  int16
	MinInsync int
}

// TopicSettings returns the replication the broker gives the topics it
// creates on the cluster (its brokers counted from the cluster's metadata:
// the most it has listed so far).
func (b *Broker) TopicSettings(ctx context.Context) (TopicSettings, error) {
	if !b.Enabled() {
		return TopicSettings{}, ErrNoBroker
	}
	st := TopicSettings{Replicas: b.replicas, MinInsync: b.minInsync}
	if st.Replicas > 0 && st.MinInsync > 0 {
		return st, nil
	}
	md, err := b.admin.BrokerMetadata(ctx)
	if err != nil {
		return st, fmt.Errorf("count kafka brokers: %w", err)
	}
	// The largest count seen: a broker that is down, or not registered yet,
	// when a topic is created does not make the cluster smaller.
	n := int(b.brokersSeen.Load())
	if m := len(md.Brokers); m > n {
		b.brokersSeen.Store(int32(m))
		n = m
	}
	if st.Replicas == 0 {
		st.Replicas = int16(max(1, min(maxDefaultReplicas, n)))
	}
	if st.MinInsync == 0 && n >= maxDefaultReplicas {
		st.MinInsync = defaultMinInsync
	}
	return st, nil
}

// topicConfigs is the CreateTopics configuration of st.
func (st TopicSettings) topicConfigs() map[string]*string {
	if st.MinInsync <= 0 {
		return nil
	}
	v := strconv.Itoa(st.MinInsync)
	return map[string]*string{"min.insync.replicas": &v}
}
