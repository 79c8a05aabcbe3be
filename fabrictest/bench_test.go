package fabrictest_test

import (
	"context"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/testcontainers/testcontainers-go"

	"github.com/fabrictest/fabrictest/fabrictest"
	"github.com/fabrictest/fabrictest/fixtures/kafka"
)

// Targets of the boot benchmark (reported, not enforced).
const (
	targetEmbedded       = 100 * time.Millisecond
	targetContainerRatio = 1.5
)

// BenchmarkStart measures the time to a ready environment (New returned and
// the emulator answered its health route) on each backend, beside a bare
// testcontainers start of the same Kafka image (fixtures/kafka.Run until
// the broker answers metadata) in the same run, alternating with it, and
// prints the ratios.
// Teardown is not timed. The container cases need Docker and skip without
// it; the image is FABRICTEST_KAFKA_IMAGE (default the pinned apache/kafka).
//
//	go test -run '^$' -bench BenchmarkStart -benchtime 3x ./fabrictest/
func BenchmarkStart(b *testing.B) {
	ctx := context.Background()
	img := kafka.ImageFromEnv()
	perOp := map[string]time.Duration{}

	measure := func(name string, start func(b *testing.B) (stop func())) {
		b.Run(name, func(b *testing.B) {
			var ready time.Duration
			b.ResetTimer()
			for range b.N {
				t0 := time.Now()
				stop := start(b)
				ready += time.Since(t0)
				b.StopTimer()
				stop()
				b.StartTimer()
			}
			perOp[name] = ready / time.Duration(b.N)
			b.ReportMetric(float64(perOp[name].Microseconds())/1000, "ms/ready")
		})
	}
	newEnv := func(b *testing.B, opts ...fabrictest.Option) func() {
		env, err := fabrictest.New(ctx, opts...)
		if err != nil {
			b.Fatal(err)
		}
		resp, err := http.Get(env.URL + "/_emulator/health")
		if err != nil || resp.StatusCode != 200 {
			b.Fatalf("emulator not ready: %v", err)
		}
		resp.Body.Close()
		return func() {
			if err := env.Close(); err != nil {
				b.Fatal(err)
			}
		}
	}

	measure("embedded", func(b *testing.B) func() {
		return newEnv(b, fabrictest.WithKafka(fabrictest.KafkaEmbedded))
	})

	if err := dockerAnswers(ctx); err != nil {
		b.Logf("container cases skipped: no Docker engine answers: %v", err)
	} else {
		bare := func(b *testing.B) func() {
			kc, err := kafka.Run(ctx, img)
			if err != nil {
				testcontainers.TerminateContainer(kc)
				b.Fatal(err)
			}
			if _, err := kc.Brokers(ctx); err != nil {
				b.Fatal(err)
			}
			return func() {
				if err := kc.Terminate(ctx); err != nil {
					b.Fatal(err)
				}
			}
		}
		// The environment and the bare container start alternate, one of each
		// per iteration, so that load from other processes on the machine
		// weighs on both alike. ns/op is the environment's time.
		b.Run("container", func(b *testing.B) {
			var env, raw time.Duration
			for i := range b.N {
				timed := func(start func(*testing.B) func()) time.Duration {
					t0 := time.Now()
					stop := start(b)
					d := time.Since(t0)
					stop()
					return d
				}
				startEnv := func(b *testing.B) func() {
					return newEnv(b, fabrictest.WithKafka(fabrictest.KafkaContainer), fabrictest.WithKafkaImage(img), fabrictest.WithDedicatedKafka())
				}
				b.StopTimer()
				if i%2 == 0 {
					raw += timed(bare)
					env += timed(startEnv)
				} else {
					env += timed(startEnv)
					raw += timed(bare)
				}
			}
			b.ReportMetric(0, "ns/op")
			perOp["container"] = env / time.Duration(b.N)
			perOp["bare-kafka-container"] = raw / time.Duration(b.N)
			b.ReportMetric(float64(perOp["container"].Microseconds())/1000, "ms/ready")
			b.ReportMetric(float64(perOp["bare-kafka-container"].Microseconds())/1000, "bare-ms/ready")
			b.ReportMetric(float64(env)/float64(raw), "x-bare")
		})
		// A broker already running (what SharedKafka gives every test after
		// the first): the cost of an environment on top of it.
		kc, err := kafka.Run(ctx, img)
		if err == nil {
			brokers, _ := kc.Brokers(ctx)
			measure("shared-container", func(b *testing.B) func() {
				return newEnv(b, fabrictest.WithKafka(brokers[0]))
			})
		}
		if kc != nil {
			_ = kc.Terminate(ctx)
		}
	}

	fmt.Printf("BenchmarkStart summary (image %s):\n", img)
	for _, name := range []string{"embedded", "bare-kafka-container", "container", "shared-container"} {
		if d, ok := perOp[name]; ok {
			fmt.Printf("  %-22s %8.1f ms to ready\n", name, float64(d.Microseconds())/1000)
		}
	}
	if d, ok := perOp["embedded"]; ok {
		fmt.Printf("  embedded target < %s: %s\n", targetEmbedded, verdict(d < targetEmbedded))
	}
	bare, okBare := perOp["bare-kafka-container"]
	if c, ok := perOp["container"]; ok && okBare {
		r := float64(c) / float64(bare)
		fmt.Printf("  container / bare container = %.2fx (target ≤ %.1fx: %s)\n", r, targetContainerRatio, verdict(r <= targetContainerRatio))
	}
	if s, ok := perOp["shared-container"]; ok && okBare {
		fmt.Printf("  shared-container / bare container = %.3fx\n", float64(s)/float64(bare))
	}
}

func verdict(ok bool) string {
	if ok {
		return "met"
	}
	return "MISSED"
}

// dockerAnswers reports whether a Docker engine answers (testcontainers
// panics when it finds none).
func dockerAnswers(ctx context.Context) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%v", r)
		}
	}()
	p, err := testcontainers.ProviderDocker.GetProvider()
	if err != nil {
		return err
	}
	defer p.Close()
	return p.Health(ctx)
}
