package broker

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
)

// TestClientPoolBound: a pool of two clients lends two, makes a third call
// wait until one is returned, giving up when the call's context ends, and
// lends the one returned first first, at once.
func TestClientPoolBound(t *testing.T) {
	p := &clientPool{name: "test", opts: []kgo.Opt{kgo.SeedBrokers("127.0.0.1:1")}, keep: 2, max: 2}
	defer p.close()
	a, err := p.get(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	b, err := p.get(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	short, cancel := context.WithTimeout(t.Context(), 20*time.Millisecond)
	defer cancel()
	if _, err := p.get(short); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("third client at the bound: %v, want to wait until the context ends", err)
	}
	p.put(a)
	p.put(b)
	start := time.Now()
	got, err := p.get(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if waited := time.Since(start); got != a || waited > time.Second {
		t.Fatalf("lent %p after %v, want the first returned (%p) at once", got, waited, a)
	}
	p.put(got)
}
