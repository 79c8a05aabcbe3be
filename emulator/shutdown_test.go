package emulator_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/fabrictest/fabrictest/emulator"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// Shutdown returns by its deadline even when the Kafka cluster stops
// answering, with requests of the drains in flight.
func TestShutdownWithinDeadlineWhenKafkaHangs(t *testing.T) {
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.DefaultNumPartitions(4))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	e := startEnv(t, emulator.WithKafka(strings.Join(c.ListenAddrs(), ",")))
	srv := e.srv
	s := newStream(e)
	for _, table := range []string{"a", "b", "c"} {
		bindLakehouse(t, s, table)
	}
	e.must(200, e.call("POST", s.produce, `{"events":[{"value":{"n":1}}]}`))

	// From now on the cluster reads every request and answers none.
	hung := make(chan struct{}, 1)
	c.Control(func(kmsg.Request) (kmsg.Response, error, bool) {
		c.KeepControl()
		select {
		case hung <- struct{}{}:
		default:
		}
		return nil, nil, true
	})
	select {
	case <-hung:
	case <-time.After(5 * time.Second):
		t.Fatal("no request reached the hung cluster")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	began := time.Now()
	done := make(chan error, 1)
	go func() { done <- srv.Shutdown(ctx) }()
	select {
	case err := <-done:
		t.Logf("Shutdown returned after %s: %v", time.Since(began).Round(time.Millisecond), err)
	case <-time.After(10 * time.Second):
		t.Fatal("Shutdown with a 2 s deadline still running after 10 s")
	}
	if took := time.Since(began); took > 3*time.Second {
		t.Fatalf("Shutdown took %s, want it bounded by its 2 s deadline", took)
	}
}
