package emulator

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/fabrictest/fabrictest/emulator/internal/broker"
	"github.com/fabrictest/fabrictest/emulator/internal/kafkaconfig"
)

// kafkaSettings is what WithKafkaConfigFile and WithKafkaProperties set.
type kafkaSettings struct {
	file  string
	props map[string]string
}

// WithKafkaConfigFile reads the security settings of the cluster named by
// WithKafka from a Kafka client properties file (client.properties:
// security.protocol, sasl.mechanism (PLAIN, SCRAM, GSSAPI with a keytab),
// sasl.jaas.config, JKS, PKCS12 and PEM trust and key stores; the keys are
// listed in docs/running.md). Anything the emulator does not support
// (OAUTHBEARER, a Kerberos ticket cache) fails New naming the key, and so
// does a cluster that refuses the settings (a wrong password, an untrusted
// CA, a principal the KDC does not know).
func WithKafkaConfigFile(path string) Option {
	return func(c *config) error { c.kafkaSec.file = strings.TrimSpace(path); return nil }
}

// WithKafkaProperties sets Kafka client properties directly, on top of those
// of WithKafkaConfigFile (the standalone binary passes its
// FABRIC_KAFKA_CONFIG_* environment variables here). Repeated, later keys win.
func WithKafkaProperties(props map[string]string) Option {
	return func(c *config) error {
		if c.kafkaSec.props == nil {
			c.kafkaSec.props = map[string]string{}
		}
		for k, v := range props {
			c.kafkaSec.props[k] = v
		}
		return nil
	}
}

// kafkaSecurity parses the Kafka security settings and settles which
// cluster they apply to: bootstrap.servers names it when WithKafka is left
// at embedded, and must agree with WithKafka's list otherwise.
func (c *config) kafkaSecurity() (kafkaconfig.Config, error) {
	props := kafkaconfig.Properties{}
	if c.kafkaSec.file != "" {
		var err error
		if props, err = kafkaconfig.ReadFile(c.kafkaSec.file); err != nil {
			return kafkaconfig.Config{}, err
		}
	}
	props = kafkaconfig.Merge(props, c.kafkaSec.props)
	sec, err := kafkaconfig.Parse(props)
	if err != nil {
		return sec, err
	}
	spec := strings.TrimSpace(c.kafka)
	switch {
	case len(sec.Bootstrap) > 0 && (spec == "" || spec == "embedded"):
		c.kafka = strings.Join(sec.Bootstrap, ",")
	case len(sec.Bootstrap) > 0 && spec != strings.Join(sec.Bootstrap, ","):
		return sec, fmt.Errorf("kafka config bootstrap.servers: %s differs from --kafka %s; give the cluster once", strings.Join(sec.Bootstrap, ","), spec)
	case sec.Secured() && (spec == "" || spec == "embedded" || spec == "none"):
		return sec, fmt.Errorf("kafka config security.protocol: %s needs a cluster (--kafka host:port or bootstrap.servers), not the %s broker", sec.SecurityProtocol, spec)
	}
	return sec, nil
}

// connectKafka attaches the broker of cfg, probing a secured cluster so that
// bad credentials or trust fail here.
func connectKafka(cfg *config, dataDir string) (*broker.Broker, error) {
	sec, err := cfg.kafkaSecurity()
	if err != nil {
		return nil, err
	}
	if err := privateDir(dataDir); err != nil {
		return nil, err
	}
	b, err := broker.Parse(cfg.kafka, broker.EmbeddedConfig{Port: cfg.embeddedPort, DataDir: dataDir},
		broker.WithPartitions(cfg.partitions), broker.WithSecurity(sec),
		broker.WithReplicationFactor(cfg.replicas), broker.WithMinInsyncReplicas(cfg.minInsync),
		broker.WithLogger(cfg.logger))
	if err != nil {
		return nil, err
	}
	if err := b.Probe(context.Background()); err != nil {
		b.Close()
		return nil, err
	}
	return b, nil
}

// WithKafkaEnv takes Kafka client properties from environment variables
// (os.Environ's form) named FABRIC_KAFKA_CONFIG_<KEY>, mapped as the
// apache/kafka image maps KAFKA_<KEY>: strip the prefix, lower-case, "___"
// is "-", "__" is "_", "_" is "." (FABRIC_KAFKA_CONFIG_SASL_JAAS_CONFIG is
// sasl.jaas.config). They win over WithKafkaConfigFile's keys.
func WithKafkaEnv(environ []string) Option {
	return WithKafkaProperties(kafkaconfig.FromEnv(environ))
}

// privateDir makes dir (when set) its owner's only before the embedded
// broker writes into it: kfake creates its files 0644, which only the
// owner can then reach.
func privateDir(dir string) error {
	if dir == "" {
		return nil
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("create kafka dir: %w", err)
	}
	if err := os.Chmod(dir, 0o700); err != nil {
		return fmt.Errorf("restrict kafka dir: %w", err)
	}
	return nil
}
