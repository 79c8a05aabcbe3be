package emulator

import "fmt"

// WithKafkaReplicationFactor sets the replication factor of the topics the
// emulator creates on a real cluster (--kafka-replication-factor),
// overriding min(3, brokers in the cluster) counted when each topic is
// created; 0 keeps that default.
func WithKafkaReplicationFactor(n int) Option {
	return func(c *config) error {
		if n < 0 || n > 32767 {
			return fmt.Errorf("kafka replication factor %d: want 0 (automatic) to 32767", n)
		}
		c.replicas = int16(n)
		return nil
	}
}

// WithKafkaMinInsyncReplicas sets the min.insync.replicas of the topics the
// emulator creates (--kafka-min-insync-replicas), overriding 2 on a cluster
// of three brokers or more (the cluster's own setting on smaller ones); 0
// keeps that default. With acks=all, which the emulator always produces
// with, a write is refused while fewer replicas than this are in sync.
func WithKafkaMinInsyncReplicas(n int) Option {
	return func(c *config) error {
		if n < 0 {
			return fmt.Errorf("kafka min.insync.replicas %d: want 0 (automatic) or more", n)
		}
		c.minInsync = n
		return nil
	}
}
