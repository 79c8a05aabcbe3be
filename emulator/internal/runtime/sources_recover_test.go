package runtime

import (
	"context"
	"log/slog"
	"strings"
	"testing"
	"time"
)

// A source runner that panics (here: a spec with no connection, which the
// copy dereferences) is recovered: the source shows Failed with the panic,
// and the runner goes on retrying instead of taking the process down.
func TestKafkaSourceRecoversPanic(t *testing.T) {
	rt := &Runtime{cfg: Config{Logger: slog.New(slog.DiscardHandler)}}
	run := &sourceRunner{spec: sourceSpec{ID: "s", Topic: "t"}, done: make(chan struct{})}
	ctx, cancel := context.WithTimeout(context.Background(), 3*kafkaRetry/2)
	defer cancel()
	go func() { defer close(run.done); rt.runKafka(ctx, run, rt.cfg.Logger) }()
	deadline := time.Now().Add(time.Second)
	for {
		if _, err := run.state(); err != nil {
			if !strings.Contains(err.Error(), "internal error") {
				t.Fatalf("source error %q, want the recovered panic", err)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the source never failed")
		}
		time.Sleep(10 * time.Millisecond)
	}
	<-run.done
}
