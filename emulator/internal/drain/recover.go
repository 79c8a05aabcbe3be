package drain

import (
	"context"
	"fmt"
	"runtime/debug"

	"github.com/twmb/franz-go/pkg/kgo"
)

// PanicError is a panic recovered at the boundary between a drain and its
// sink: the sink (or an operator it runs) failed on what it was given.
type PanicError struct {
	Value any    // what was passed to panic
	Stack []byte // the goroutine's stack where it panicked
}

func (e *PanicError) Error() string {
	return fmt.Sprintf("internal error of the emulator (recovered): %v", e.Value)
}

// Skipper is implemented by sinks with a policy for a record they cannot
// take (a Lakehouse parks it beside the table and counts it): Skip is
// called for a record whose write panicked, and the drain then goes past it.
type Skipper interface {
	Skip(ctx context.Context, r *kgo.Record, reason error) error
}

// Panicker is implemented by sinks that recover panics of their own (a
// writer's, row by row); their count adds to the drain's.
type Panicker interface {
	Panics() int64
}

// guard runs fn, turning a panic into a *PanicError.
func guard(fn func() error) (err error) {
	defer func() {
		if v := recover(); v != nil {
			err = &PanicError{Value: v, Stack: debug.Stack()}
		}
	}()
	return fn()
}

// notePanic logs a recovered panic with the records' coordinates and counts it.
func (d *Drain) notePanic(what string, b Batch, err *PanicError) {
	args := []any{"topic", d.cfg.Topic, "group", d.cfg.Group, "panic", fmt.Sprint(err.Value), "stack", string(err.Stack)}
	switch len(b.Records) {
	case 0:
	case 1:
		args = append(args, "partition", b.Records[0].Partition, "offset", b.Records[0].Offset)
	default:
		first, last := b.Records[0], b.Records[len(b.Records)-1]
		args = append(args, "records", len(b.Records), "first", fmt.Sprintf("%d/%d", first.Partition, first.Offset),
			"last", fmt.Sprintf("%d/%d", last.Partition, last.Offset))
	}
	d.cfg.Logger.Error("destination "+what+" panicked; recovered", args...)
	d.update(func() { d.panics++ })
}

// isolate delivers the records of a batch whose write panicked one at a
// time; a record that panics alone is handed to the sink's Skipper (or
// dropped when it has none) and delivery goes past it. It reports false
// when the drain stops.
func (d *Drain) isolate(ctx context.Context, b Batch) bool {
	for _, r := range b.Records {
		one := Batch{Records: []*kgo.Record{r}, Last: map[int32]int64{r.Partition: r.Offset}}
		if !d.deliver(ctx, one) {
			return false
		}
	}
	return true
}

// skip applies the sink's policy to a record whose write panicked alone.
func (d *Drain) skip(ctx context.Context, r *kgo.Record, cause error) error {
	s, ok := d.cfg.Sink.(Skipper)
	if !ok {
		return nil
	}
	return guard(func() error { return s.Skip(ctx, r, cause) })
}
