package fabrictest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/testcontainers/testcontainers-go"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/fabrictest/fabrictest/fixtures/kafka"
)

// kafkaFromEnv reads FABRICTEST_KAFKA (default KafkaContainer) and says
// where the choice came from.
func kafkaFromEnv() (spec, source string, err error) {
	v := strings.TrimSpace(os.Getenv(KafkaEnv))
	if v == "" {
		return KafkaContainer, "the default, as " + KafkaEnv + " is unset", nil
	}
	if spec, err = parseKafka(v); err != nil {
		return "", "", fmt.Errorf("%s=%q: %w", KafkaEnv, v, err)
	}
	return spec, KafkaEnv + "=" + v, nil
}

// image is the Kafka container image: WithKafkaImage, FABRICTEST_KAFKA_IMAGE,
// then kafka.DefaultImage.
func (c *core) image() string {
	if c.cfg.image != "" {
		return c.cfg.image
	}
	return kafka.ImageFromEnv()
}

// startKafka starts or joins the configured backend and returns the spec
// for emulator.WithKafka.
func (c *core) startKafka(ctx context.Context) (string, error) {
	switch c.cfg.kafka {
	case KafkaEmbedded:
		c.backend = KafkaEmbedded
		return KafkaEmbedded, nil
	case KafkaContainer:
		c.backend = KafkaContainer
	default:
		c.backend = "external"
		return c.cfg.kafka, nil
	}
	if c.cfg.clusterBrokers > 0 {
		return c.startCluster(ctx)
	}
	img := c.image()
	if !c.cfg.dedicated {
		if brokers, ok, err := shared.brokers(img, c.cfg.kafkaSource); ok {
			if err != nil {
				return "", err
			}
			c.shared = true
			return strings.Join(brokers, ","), nil
		}
	}
	brokers, stop, err := runKafka(ctx, img, c.cfg.kafkaSource)
	if stop != nil {
		c.addCloser(stop)
	}
	if err != nil {
		return "", err
	}
	return strings.Join(brokers, ","), nil
}

// runKafka starts one Kafka container from img. stop, when not nil, must be
// called even if err is not nil: the container may exist.
func runKafka(ctx context.Context, img, source string) (brokers []string, stop func() error, err error) {
	if err := dockerHealthy(ctx); err != nil {
		return nil, nil, noDockerError(source, err)
	}
	kc, err := kafka.Run(ctx, img)
	if kc != nil {
		stop = func() error {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			return kc.Terminate(ctx)
		}
	}
	if err != nil {
		return nil, stop, fmt.Errorf("%w\n\tThe image is %s (set %s or WithKafkaImage to change it; in this repository `make kafka-image` builds %s),\n\tor run on the in-process broker: %s=%s", err, img, KafkaImageEnv, kafka.LocalImage, KafkaEnv, KafkaEmbedded)
	}
	brokers, err = kc.Brokers(ctx)
	if err != nil {
		return nil, stop, fmt.Errorf("kafka container: %w", err)
	}
	return brokers, stop, nil
}

// awaitTopic waits until the broker serves offsets for every partition of
// topic. Apache Kafka answers CreateTopics before the topic is in its
// metadata cache, so a consume right after an Eventstream is created could
// answer UNKNOWN_TOPIC_OR_PARTITION (as 502 KafkaUnavailable); the embedded
// broker creates topics synchronously and needs no wait.
func (c *core) awaitTopic(ctx context.Context, topic string) error {
	if c.backend == KafkaEmbedded {
		return nil
	}
	adm, err := c.admin()
	if err != nil {
		return err
	}
	var last error
	for {
		offsets, err := adm.ListStartOffsets(ctx, topic)
		if err == nil {
			err = offsets.Error()
		}
		if err == nil && len(offsets[topic]) > 0 {
			return nil
		}
		last = err
		select {
		case <-ctx.Done():
			return fmt.Errorf("topic %s is not served by %v: %w", topic, c.srv.KafkaBootstrap(), errors.Join(ctx.Err(), last))
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// admin returns the environment's Kafka admin client, connecting on first
// use.
func (c *core) admin() (*kadm.Client, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.adm != nil {
		return c.adm, nil
	}
	cl, err := kgo.NewClient(kgo.SeedBrokers(c.srv.KafkaBootstrap()...), kgo.DialTimeout(5*time.Second))
	if err != nil {
		return nil, fmt.Errorf("kafka admin client: %w", err)
	}
	c.addCloser(func() error { cl.Close(); return nil })
	c.adm = kadm.NewClient(cl)
	return c.adm, nil
}

// dockerOK caches a successful health check: one per test binary.
var dockerOK struct {
	sync.Mutex
	ok bool
}

// dockerHealthy reports whether a Docker engine answers. testcontainers
// panics when it finds no Docker host at all; that is an error here.
func dockerHealthy(ctx context.Context) (err error) {
	dockerOK.Lock()
	defer dockerOK.Unlock()
	if dockerOK.ok {
		return nil
	}
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%v", r)
		}
	}()
	provider, err := testcontainers.ProviderDocker.GetProvider()
	if err != nil {
		return err
	}
	defer provider.Close()
	ctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	if err := provider.Health(ctx); err != nil {
		return err
	}
	dockerOK.ok = true
	return nil
}

// noDockerError explains how to run without Docker.
func noDockerError(source string, cause error) error {
	return fmt.Errorf("kafka runs in a container (%s), but no Docker engine answers.\n"+
		"\tRun on the in-process broker instead:  %s=%s go test ./...\n"+
		"\tor start Docker (in this repository: make docker) and try again.\n"+
		"\tDocker: %s", source, KafkaEnv, KafkaEmbedded, strings.ReplaceAll(cause.Error(), "\n", "\n\t\t"))
}

// shared is the broker SharedKafka runs for the whole test binary.
var shared sharedKafka

type sharedKafka struct {
	mu      sync.Mutex
	enabled bool
	started bool
	image   string
	list    []string
	err     error
	stop    func() error
}

// brokers returns the shared broker's bootstrap servers, starting it on
// first use. ok is false when sharing is off or img is another image.
func (s *sharedKafka) brokers(img, source string) (brokers []string, ok bool, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.enabled {
		return nil, false, nil
	}
	if s.started {
		if s.image != img {
			return nil, false, nil
		}
		return s.list, true, s.err
	}
	s.started, s.image = true, img
	ctx, cancel := context.WithTimeout(context.Background(), defaultStartupTimeout)
	defer cancel()
	s.list, s.stop, s.err = runKafka(ctx, img, source)
	if s.err != nil {
		s.err = fmt.Errorf("shared Kafka container (SharedKafka): %w", s.err)
	}
	return s.list, true, s.err
}

func (s *sharedKafka) setEnabled(on bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.enabled = on
}

// shutdown stops the shared container, if one was started, and disables
// sharing.
func (s *sharedKafka) shutdown() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	stop := s.stop
	s.enabled, s.started, s.image, s.list, s.err, s.stop = false, false, "", nil, nil, nil
	if stop == nil {
		return nil
	}
	return stop()
}

// SharedKafka runs the tests of m with one Kafka container shared by every
// environment whose backend is "container", and stops it when they are done.
// Call it from TestMain:
//
//	func TestMain(m *testing.M) { os.Exit(fabrictest.SharedKafka(m)) }
//
// The container starts with the first environment that needs it (none when
// FABRICTEST_KAFKA=embedded), so a filtered run that starts no environment
// starts no container. Each environment still has its own emulator, and each
// Eventstream its own topic ({itemId}.{datasourceId}), so tests stay
// isolated and may run in parallel; topics stay on the broker until it stops.
// WithDedicatedKafka, or another WithKafkaImage, opts an environment out.
//
// It returns m.Run's exit code, or 1 when the tests passed but the container
// could not be stopped. If the test binary is killed, the container is left
// running (the Ryuk reaper, when enabled, removes it).
func SharedKafka(m *testing.M) int {
	shared.setEnabled(true)
	code := m.Run()
	if err := shared.shutdown(); err != nil {
		fmt.Fprintf(os.Stderr, "fabrictest: stop shared Kafka container: %v\n", err)
		if code == 0 {
			code = 1
		}
	}
	return code
}
