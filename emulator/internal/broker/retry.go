package broker

import (
	"context"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
)

// RetryWindow bounds how long Retrying waits out retriable errors.
const RetryWindow = 30 * time.Second

// Retrying runs fn until it succeeds, fails with an error Kafka does not
// mark retriable, ctx ends, or RetryWindow passes. A broker that has just
// started answers group requests with COORDINATOR_NOT_AVAILABLE or
// COORDINATOR_LOAD_IN_PROGRESS while it creates __consumer_offsets, and
// NOT_COORDINATOR while a coordinator moves: Kafka marks them retriable,
// and clients wait them out.
func Retrying(ctx context.Context, fn func() error) error {
	deadline := time.Now().Add(RetryWindow)
	for wait := 50 * time.Millisecond; ; wait = min(2*wait, time.Second) {
		err := fn()
		if err == nil || !kerr.IsRetriable(err) || time.Now().After(deadline) {
			return err
		}
		select {
		case <-ctx.Done():
			return err
		case <-time.After(wait):
		}
	}
}
