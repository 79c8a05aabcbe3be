package broker

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
)

// healthTTL is how long TopicHealth's answer for a topic is reused: status
// routes may ask for every destination of a listing at once.
const healthTTL = time.Second

// healthTimeout bounds one TopicHealth look-up; a cluster that does not
// answer by then is reported as such.
const healthTimeout = 3 * time.Second

// health caches TopicHealth answers and topics' min.insync.replicas.
type health struct {
	mu        sync.Mutex
	answers   map[string]healthAnswer
	minInsync map[string]int
}

type healthAnswer struct {
	err error
	at  time.Time
}

// UnavailableError says why the cluster cannot serve a topic for now.
type UnavailableError struct {
	Topic     string
	Partition int32
	Reason    string
}

func (e *UnavailableError) Error() string {
	return fmt.Sprintf("partition %s/%d %s", e.Topic, e.Partition, e.Reason)
}

// TopicHealth reports whether the cluster can serve topic now: nil when
// every partition has a leader and at least min.insync.replicas in-sync
// replicas, an *UnavailableError naming the first partition that has not
// (with fewer in sync, the cluster refuses acks=all writes), or the error
// of a cluster that does not answer. Answers are reused for a second.
func (b *Broker) TopicHealth(ctx context.Context, topic string) error {
	if !b.Enabled() {
		return ErrNoBroker
	}
	b.health.mu.Lock()
	if a, ok := b.health.answers[topic]; ok && time.Since(a.at) < healthTTL {
		b.health.mu.Unlock()
		return a.err
	}
	b.health.mu.Unlock()
	ctx, cancel := context.WithTimeout(ctx, healthTimeout)
	defer cancel()
	err := b.topicHealth(ctx, topic)
	b.health.mu.Lock()
	if b.health.answers == nil {
		b.health.answers = map[string]healthAnswer{}
	}
	b.health.answers[topic] = healthAnswer{err: err, at: time.Now()}
	b.health.mu.Unlock()
	return err
}

func (b *Broker) topicHealth(ctx context.Context, topic string) error {
	md, err := b.admin.Metadata(ctx, topic)
	if err != nil {
		return fmt.Errorf("read metadata of %s: %w", topic, err)
	}
	td, ok := md.Topics[topic]
	if !ok || td.Err != nil {
		if !ok {
			td.Err = kerr.UnknownTopicOrPartition
		}
		return fmt.Errorf("read metadata of %s: %w", topic, td.Err)
	}
	need := b.minInsyncOf(ctx, topic)
	for _, p := range td.Partitions.Sorted() {
		switch {
		case p.Err != nil && p.Leader < 0:
			return &UnavailableError{Topic: topic, Partition: p.Partition, Reason: "has no leader: " + p.Err.Error()}
		case p.Leader < 0:
			return &UnavailableError{Topic: topic, Partition: p.Partition, Reason: "has no leader"}
		case len(p.ISR) < need:
			return &UnavailableError{Topic: topic, Partition: p.Partition,
				Reason: fmt.Sprintf("has %d in-sync replica(s) of the %d min.insync.replicas asks: the cluster refuses acks=all writes", len(p.ISR), need)}
		}
	}
	return nil
}

// minInsyncOf is topic's min.insync.replicas, read once from the cluster
// (1, Kafka's default, when it cannot be read).
func (b *Broker) minInsyncOf(ctx context.Context, topic string) int {
	b.health.mu.Lock()
	n, ok := b.health.minInsync[topic]
	b.health.mu.Unlock()
	if ok {
		return n
	}
	rcs, err := b.admin.DescribeTopicConfigs(ctx, topic)
	if err != nil {
		return 1
	}
	rc, err := rcs.On(topic, nil)
	if err != nil {
		return 1
	}
	n = 1
	for _, c := range rc.Configs {
		if c.Key == "min.insync.replicas" && c.Value != nil {
			if v, err := strconv.Atoi(*c.Value); err == nil {
				n = v
			}
		}
	}
	b.health.mu.Lock()
	if b.health.minInsync == nil {
		b.health.minInsync = map[string]int{}
	}
	b.health.minInsync[topic] = n
	b.health.mu.Unlock()
	return n
}
