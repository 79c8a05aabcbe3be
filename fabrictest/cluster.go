package fabrictest

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/fabrictest/fabrictest/fixtures/kafka"
)

// WithKafkaCluster runs the environment on an Apache Kafka cluster of its
// own, brokers nodes (fixtures/kafka.RunCluster, every node a broker and a
// KRaft controller, default image as for "container"), instead of a single
// broker. The emulator gets every node's host listener as its bootstrap
// servers and creates Eventstream topics with min(3, brokers) replicas and,
// from three brokers on, min.insync.replicas=2. Env.KafkaCluster returns the
// cluster, so that a test can stop a broker and start it again. It is never
// shared with SharedKafka's container, and overrides FABRICTEST_KAFKA (the
// last of WithKafka and WithKafkaCluster wins); brokers must be 1 to 9 (3 is what a staging cluster
// usually has).
func WithKafkaCluster(brokers int) Option {
	return func(c *config) error {
		if brokers < 1 || brokers > 9 {
			return fmt.Errorf("WithKafkaCluster(%d): want 1 to 9 brokers", brokers)
		}
		c.kafka, c.kafkaSource = KafkaContainer, fmt.Sprintf("WithKafkaCluster(%d)", brokers)
		c.clusterBrokers, c.dedicated = brokers, true
		return nil
	}
}

// KafkaCluster is the cluster WithKafkaCluster started, nil for any other
// backend. Its Nodes can be stopped and started (testcontainers' Stop and
// Start); it is terminated with the environment.
func (e *Env) KafkaCluster() *kafka.Cluster { return e.c.cluster }

// startCluster starts WithKafkaCluster's cluster and returns its bootstrap
// servers for emulator.WithKafka.
func (c *core) startCluster(ctx context.Context) (string, error) {
	if err := dockerHealthy(ctx); err != nil {
		return "", noDockerError(c.cfg.kafkaSource, err)
	}
	img := c.image()
	cl, err := kafka.RunCluster(ctx, img, kafka.WithBrokers(c.cfg.clusterBrokers))
	if cl != nil {
		c.addCloser(func() error {
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			return cl.Terminate(ctx)
		})
	}
	if err != nil {
		return "", fmt.Errorf("%w\n\tThe image is %s (set %s or WithKafkaImage to change it; in this repository `make kafka-image` builds %s)", err, img, KafkaImageEnv, kafka.LocalImage)
	}
	c.cluster = cl
	return strings.Join(cl.Brokers(), ","), nil
}
