package broker

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
)

// TestClientPoolBoundAndRest: a pool of two clients that rest 50 ms lends
// two, makes a third call wait until one is returned and has rested, lends
// the one that rested longest first, and gives up when the call's context
// ends.
func TestClientPoolBoundAndRest(t *testing.T) {
	const rest = 50 * time.Millisecond
	p := &clientPool{name: "test", opts: []kgo.Opt{kgo.SeedBrokers("127.0.0.1:1")}, keep: 2, max: 2, settle: rest}
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
	if waited := time.Since(start); got != a || waited < rest-5*time.Millisecond {
		t.Fatalf("lent %p after %v, want the first returned (%p) after it rested %v", got, waited, a, rest)
	}
	p.put(got)
}
