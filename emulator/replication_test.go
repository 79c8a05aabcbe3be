package emulator_test

import (
	"context"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/fabrictest/fabrictest/emulator"
)

// TestEventstreamTopicReplication checks that an Eventstream's topic on a
// three-broker cluster gets three replicas by default, and what
// WithKafkaReplicationFactor asks for otherwise.
func TestEventstreamTopicReplication(t *testing.T) {
	for _, tc := range []struct {
		name string
		opts []emulator.Option
		want int
	}{
		{"default", nil, 3},
		{"WithKafkaReplicationFactor(2)", []emulator.Option{emulator.WithKafkaReplicationFactor(2), emulator.WithKafkaMinInsyncReplicas(1)}, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := kfake.NewCluster(kfake.NumBrokers(3))
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			e := startEnv(t, append([]emulator.Option{emulator.WithKafka(c.ListenAddrs()[0])}, tc.opts...)...)
			s := newStream(e)
			e.must(200, e.call("POST", s.produce, `{"events":[{"value":"x"}]}`))
			cl, err := kgo.NewClient(kgo.SeedBrokers(c.ListenAddrs()...))
			if err != nil {
				t.Fatal(err)
			}
			defer cl.Close()
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			topic := s.id + "." + s.ds
			md, err := kadm.NewClient(cl).Metadata(ctx, topic)
			if err != nil {
				t.Fatal(err)
			}
			for _, p := range md.Topics[topic].Partitions {
				if len(p.Replicas) != tc.want {
					t.Errorf("partition %d has %d replicas, want %d", p.Partition, len(p.Replicas), tc.want)
				}
			}
		})
	}
}

// TestReplicationOptionsRefuseNegatives checks the options' bounds.
func TestReplicationOptionsRefuseNegatives(t *testing.T) {
	if _, err := emulator.New(emulator.WithKafka("none"), emulator.WithKafkaReplicationFactor(-1)); err == nil {
		t.Error("WithKafkaReplicationFactor(-1) accepted")
	}
	if _, err := emulator.New(emulator.WithKafka("none"), emulator.WithKafkaMinInsyncReplicas(-1)); err == nil {
		t.Error("WithKafkaMinInsyncReplicas(-1) accepted")
	}
}
