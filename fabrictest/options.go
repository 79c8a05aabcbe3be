package fabrictest

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/fabrictest/fabrictest/emulator"
	"github.com/google/uuid"
)

// Environment variables read by Start and New. An option passed to Start
// wins over its variable; the variable wins over the default.
const (
	// KafkaEnv picks the Kafka backend: "container" (the default), "embedded",
	// or a comma-separated host:port list of a running cluster. See WithKafka.
	KafkaEnv = "FABRICTEST_KAFKA"

	// KafkaImageEnv overrides the image of the Kafka container (default
	// fixtures/kafka.DefaultImage, the pinned apache/kafka:3.9.1). See
	// WithKafkaImage.
	KafkaImageEnv = "FABRICTEST_KAFKA_IMAGE"
)

// Kafka backends, the values of WithKafka and FABRICTEST_KAFKA besides a
// host:port list.
const (
	// KafkaContainer runs Apache Kafka in a container through testcontainers
	// (fixtures/kafka): a real broker, a few seconds to start, shared by the
	// whole test binary after SharedKafka.
	KafkaContainer = "container"
	// KafkaEmbedded runs franz-go's kfake inside the test process: it speaks
	// the Kafka wire protocol and starts in milliseconds, but it is not Apache
	// Kafka.
	KafkaEmbedded = "embedded"
)

// Defaults of the options below.
const (
	// defaultStartupTimeout bounds starting the Kafka container and the
	// emulator.
	defaultStartupTimeout = 2 * time.Minute
	// defaultCallTimeout bounds one HTTP call of a helper (a consume adds the
	// time it was asked to wait for records).
	defaultCallTimeout = time.Minute
)

// config is what the options set. The zero value is not used: see defaults.
type config struct {
	kafka          string // "" → $FABRICTEST_KAFKA → KafkaContainer
	kafkaSource    string // how kafka was chosen, for messages
	image          string // "" → $FABRICTEST_KAFKA_IMAGE → kafka.DefaultImage
	dedicated      bool
	clusterBrokers int // WithKafkaCluster; 0: a single broker
	principal      string
	partitions     int
	dataDir        string
	startupTimeout time.Duration
	callTimeout    time.Duration
	emulatorOpts   []emulator.Option
	kqlURL         string // WithKQL
	kustoFake      bool   // WithKustoFake
}

func defaults() config {
	return config{
		principal:      DefaultPrincipal,
		partitions:     4,
		startupTimeout: defaultStartupTimeout,
		callTimeout:    defaultCallTimeout,
	}
}

// Option configures Start and New. Options are applied in order after the
// defaults; one that returns an error stops Start before anything is started.
type Option func(*config) error

// WithKafka picks the Kafka backend behind the emulator, overriding the
// FABRICTEST_KAFKA environment variable and the default, "container":
//
//   - "container": Apache Kafka in a container (fixtures/kafka.Run with the
//     image of WithKafkaImage). Needs a Docker engine; without one Start fails
//     with a message that names FABRICTEST_KAFKA=embedded. After SharedKafka
//     one container serves every environment of the test binary.
//   - "embedded": franz-go's kfake in-process (not Apache Kafka; no Docker).
//   - "host:port[,host:port]": a running cluster. Each Eventstream gets its
//     own topic there; topics of deleted Eventstreams are deleted.
func WithKafka(backend string) Option {
	return func(c *config) error {
		spec, err := parseKafka(backend)
		if err != nil {
			return err
		}
		c.kafka, c.kafkaSource = spec, fmt.Sprintf("WithKafka(%q)", backend)
		c.clusterBrokers = 0 // the last of WithKafka and WithKafkaCluster wins
		return nil
	}
}

// WithKafkaImage sets the image of the Kafka container, overriding
// FABRICTEST_KAFKA_IMAGE and the default, fixtures/kafka.DefaultImage (the
// pinned apache/kafka:3.9.1). Any image with apache/kafka's contract works,
// such as fixtures/kafka.LocalImage built by `make kafka-image`.
func WithKafkaImage(image string) Option {
	return func(c *config) error {
		if strings.TrimSpace(image) == "" {
			return errors.New("WithKafkaImage: empty image reference")
		}
		c.image = strings.TrimSpace(image)
		return nil
	}
}

// WithDedicatedKafka gives this environment a Kafka container of its own
// even when SharedKafka runs a shared one (the default after SharedKafka is
// to share). Use it for a test that stops, restarts or reconfigures the
// broker. It changes nothing for the embedded and host:port backends.
func WithDedicatedKafka() Option {
	return func(c *config) error { c.dedicated = true; return nil }
}

// WithPrincipal sets who the environment acts as (the oid of its tokens),
// overriding DefaultPrincipal. A name that is not a GUID is turned into one
// with PrincipalID, so WithPrincipal("alice") and env.As("alice") agree.
func WithPrincipal(principal string) Option {
	return func(c *config) error {
		if strings.TrimSpace(principal) == "" {
			return errors.New("WithPrincipal: empty principal")
		}
		c.principal = PrincipalID(principal)
		return nil
	}
}

// WithPartitions sets the partition count of the Kafka topic behind each new
// Eventstream (default 4, like the emulator and a Fabric custom endpoint).
// One partition makes the order of consumed records the order of produce.
func WithPartitions(n int) Option {
	return func(c *config) error {
		if n < 1 || n > 1000 {
			return fmt.Errorf("WithPartitions(%d): want 1 to 1000", n)
		}
		c.partitions = n
		return nil
	}
}

// WithDataDir keeps the emulator's metadata, token key and (for the embedded
// broker) Kafka log under dir, where a test can read the files the emulator
// writes. Default: everything in memory, which is faster.
func WithDataDir(dir string) Option {
	return func(c *config) error {
		if strings.TrimSpace(dir) == "" {
			return errors.New("WithDataDir: empty directory")
		}
		c.dataDir = dir
		return nil
	}
}

// WithStartupTimeout bounds starting Kafka (container) and the emulator,
// overriding the default of two minutes.
func WithStartupTimeout(d time.Duration) Option {
	return func(c *config) error {
		if d <= 0 {
			return fmt.Errorf("WithStartupTimeout(%s): want a positive duration", d)
		}
		c.startupTimeout = d
		return nil
	}
}

// WithCallTimeout bounds each HTTP call a helper makes, overriding
// the default of one minute. Env.WithContext bounds calls by a context
// instead.
func WithCallTimeout(d time.Duration) Option {
	return func(c *config) error {
		if d <= 0 {
			return fmt.Errorf("WithCallTimeout(%s): want a positive duration", d)
		}
		c.callTimeout = d
		return nil
	}
}

// WithEmulatorOptions passes options straight to emulator.New, after those
// fabrictest derives from its own options, so they win (there are none by
// default). Prefer WithKafka to emulator.WithKafka: only WithKafka starts and
// stops a container; Env.KafkaBootstrap always reports the server's broker.
func WithEmulatorOptions(opts ...emulator.Option) Option {
	return func(c *config) error {
		c.emulatorOpts = append(c.emulatorOpts, opts...)
		return nil
	}
}

// WithKustoFake starts an in-process Kusto engine (package kustofake: the
// Go SDK talks to it as to a real engine, and it refuses bare keywords such
// as kind with SYN0002 as kustainer does) for the environment, attaches it
// to the emulator for Eventhouse destinations, and stops it at teardown.
// Env.KustoRows reads it back; Env.KustoFake returns it.
func WithKustoFake() Option {
	return func(c *config) error { c.kustoFake, c.kqlURL = true, ""; return nil }
}

// WithKQL attaches the Kusto engine at url (kustainer, or any engine URL)
// for Eventhouse destinations and Env.KustoRows, instead of WithKustoFake's.
func WithKQL(url string) Option {
	return func(c *config) error {
		if strings.TrimSpace(url) == "" {
			return errors.New("WithKQL: empty URL")
		}
		c.kqlURL, c.kustoFake = strings.TrimRight(strings.TrimSpace(url), "/"), false
		return nil
	}
}

// parseKafka validates a backend spec: container, embedded or host:port list.
func parseKafka(spec string) (string, error) {
	s := strings.TrimSpace(spec)
	switch s {
	case KafkaContainer, KafkaEmbedded:
		return s, nil
	case "":
		return "", errors.New("kafka backend: empty; want container, embedded or host:port[,host:port]")
	case "none":
		return "", errors.New("kafka backend \"none\" is not offered by the harness: every Eventstream needs a broker; want container, embedded or host:port")
	}
	for _, h := range strings.Split(s, ",") {
		h = strings.TrimSpace(h)
		i := strings.LastIndex(h, ":")
		if h == "" || i <= 0 || i == len(h)-1 {
			return "", fmt.Errorf("kafka backend %q: want container, embedded or host:port[,host:port]", spec)
		}
	}
	return s, nil
}

// DefaultPrincipal is the oid the environment acts as unless WithPrincipal or
// As says otherwise: the emulator's default user, who becomes Admin of every
// workspace it creates.
const DefaultPrincipal = emulator.DefaultPrincipal

// principalNamespace turns principal names into GUIDs (UUID v5).
var principalNamespace = uuid.MustParse("5f0d6c1e-8a51-4b7e-9a4c-2f7c1b0e6d3a")

// PrincipalID returns the oid for principal: a GUID is returned as is
// (lower-cased), any other text is hashed into a stable GUID, so tests can
// say env.As("viewer") and ws.Grant("viewer", Viewer) and mean the same
// person.
func PrincipalID(principal string) string {
	p := strings.TrimSpace(principal)
	if id, err := uuid.Parse(p); err == nil && len(p) == 36 {
		return id.String()
	}
	return uuid.NewSHA1(principalNamespace, []byte(p)).String()
}
