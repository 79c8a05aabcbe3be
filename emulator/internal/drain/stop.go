package drain

import (
	"context"
	"errors"
)

// StoppedError is the error of a drain that StopOnError stopped: its sink
// failed with Err, the batch's offsets were not committed, and nothing is
// delivered until the drain is started again (which delivers the batch
// again).
type StoppedError struct{ Err error }

func (e *StoppedError) Error() string {
	return "stopped by its error policy fail: " + e.Err.Error()
}

// Unwrap returns the sink's error.
func (e *StoppedError) Unwrap() error { return e.Err }

// stop records that the drain stops on err; the run loop then returns.
func (d *Drain) stop(err error) {
	var se *StoppedError
	if !errors.As(err, &se) {
		se = &StoppedError{Err: err}
	}
	d.cfg.Logger.Error("destination stopped on an error (error policy fail); its offsets are not committed",
		"topic", d.cfg.Topic, "group", d.cfg.Group, "err", err)
	ctx, cancel := context.WithTimeout(context.Background(), closeCommitWait)
	defer cancel()
	d.commits.flush(ctx) // the group at the last batch written, as the status says
	d.update(func() { d.err, d.stopErr = se, se; d.failures++ })
}

// stopped returns the error StopOnError stopped the drain on, if any.
func (d *Drain) stopped() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.stopErr
}
