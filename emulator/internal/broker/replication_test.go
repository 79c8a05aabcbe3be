package broker

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// seen records what the emulator's client asked a kfake cluster for.
type seen struct {
	mu       sync.Mutex
	replicas []int16
	configs  []map[string]string
	acks     []int16
	producer []int64
}

// recordingCluster starts a kfake cluster of n brokers that records every
// CreateTopics and Produce request before handling it as usual.
func recordingCluster(t *testing.T, n int) (*kfake.Cluster, *seen) {
	t.Helper()
	c, err := kfake.NewCluster(kfake.NumBrokers(n))
	if err != nil {
		t.Fatalf("start kfake: %v", err)
	}
	t.Cleanup(c.Close)
	s := &seen{}
	c.ControlKey(int16(kmsg.CreateTopics), func(req kmsg.Request) (kmsg.Response, error, bool) {
		c.KeepControl()
		s.mu.Lock()
		defer s.mu.Unlock()
		for _, tp := range req.(*kmsg.CreateTopicsRequest).Topics {
			cfg := map[string]string{}
			for _, kv := range tp.Configs {
				if kv.Value != nil {
					cfg[kv.Name] = *kv.Value
				}
			}
			s.replicas, s.configs = append(s.replicas, tp.ReplicationFactor), append(s.configs, cfg)
		}
		return nil, nil, false
	})
	c.ControlKey(int16(kmsg.Produce), func(req kmsg.Request) (kmsg.Response, error, bool) {
		c.KeepControl()
		s.mu.Lock()
		defer s.mu.Unlock()
		pr := req.(*kmsg.ProduceRequest)
		s.acks = append(s.acks, pr.Acks)
		for _, tp := range pr.Topics {
			for _, p := range tp.Partitions {
				var rb kmsg.RecordBatch
				if err := rb.ReadFrom(p.Records); err == nil {
					s.producer = append(s.producer, rb.ProducerID)
				}
			}
		}
		return nil, nil, false
	})
	return c, s
}

// TestTopicReplicationFollowsClusterSize checks that topics get min(3, n)
// replicas and, from three brokers on, min.insync.replicas=2.
func TestTopicReplicationFollowsClusterSize(t *testing.T) {
	for _, tc := range []struct {
		brokers   int
		replicas  int16
		minInsync string
	}{{1, 1, ""}, {2, 2, ""}, {3, 3, "2"}, {4, 3, "2"}} {
		c, s := recordingCluster(t, tc.brokers)
		b, err := External(c.ListenAddrs())
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		if err := b.CreateTopic(ctx, "t"); err != nil {
			t.Fatalf("%d brokers: create topic: %v", tc.brokers, err)
		}
		cancel()
		b.Close()
		s.mu.Lock()
		if len(s.replicas) != 1 || s.replicas[0] != tc.replicas || s.configs[0]["min.insync.replicas"] != tc.minInsync {
			t.Errorf("%d brokers: created with replicas %v configs %v, want %d and min.insync.replicas %q", tc.brokers, s.replicas, s.configs, tc.replicas, tc.minInsync)
		}
		s.mu.Unlock()
	}
}

// TestTopicReplicationOverrides checks WithReplicationFactor and
// WithMinInsyncReplicas win over the cluster's size.
func TestTopicReplicationOverrides(t *testing.T) {
	c, s := recordingCluster(t, 3)
	b, err := External(c.ListenAddrs(), WithReplicationFactor(2), WithMinInsyncReplicas(1))
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := b.CreateTopic(ctx, "t"); err != nil {
		t.Fatalf("create topic: %v", err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.replicas) != 1 || s.replicas[0] != 2 || s.configs[0]["min.insync.replicas"] != "1" {
		t.Errorf("created with replicas %v configs %v, want 2 and min.insync.replicas 1", s.replicas, s.configs)
	}
}

// TestProduceAcksAllIdempotent checks that every produce asks for acks=all
// (-1) from an idempotent producer (a producer id on every batch), so a
// batch retried after a lost broker is written once.
func TestProduceAcksAllIdempotent(t *testing.T) {
	c, s := recordingCluster(t, 3)
	b, err := External(c.ListenAddrs())
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	recs := []*kgo.Record{{Value: []byte("a")}, {Value: []byte("b")}, {Value: []byte("c")}}
	if _, err := b.Produce(ctx, "t", recs); err != nil {
		t.Fatalf("produce: %v", err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.acks) == 0 {
		t.Fatal("no produce request seen")
	}
	for i, a := range s.acks {
		if a != -1 {
			t.Errorf("produce request %d: acks=%d, want -1 (all)", i, a)
		}
	}
	if len(s.producer) == 0 {
		t.Fatal("no record batch seen")
	}
	for i, id := range s.producer {
		if id < 0 {
			t.Errorf("batch %d: producer id %d, want an idempotent producer's id", i, id)
		}
	}
}
