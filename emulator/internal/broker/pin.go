package broker

import (
	"context"

	"github.com/twmb/franz-go/pkg/kgo"
)

// pinKey is the context key of PinPartition.
type pinKey struct{}

// PinPartition returns a context under which Produce puts every record on
// partition p, whatever its key (an Event Hubs client sending to a
// partition id). The caller checks the topic has partition p: one it
// lacks is ignored.
func PinPartition(ctx context.Context, p int32) context.Context {
	return context.WithValue(ctx, pinKey{}, p)
}

// pinned returns the partition r's produce context pins, if any.
func pinned(r *kgo.Record) (int32, bool) {
	if r.Context == nil {
		return 0, false
	}
	p, ok := r.Context.Value(pinKey{}).(int32)
	return p, ok
}
