package broker

import (
	"context"
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
