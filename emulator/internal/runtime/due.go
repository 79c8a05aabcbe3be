package runtime

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/fabrictest/fabrictest/emulator/internal/clock"
	"github.com/fabrictest/fabrictest/emulator/internal/fabricerr"
)

// Clock is the emulator's controllable clock.
func (rt *Runtime) Clock() *clock.Clock { return rt.cfg.Clock }

// sinks returns the processors of the running drains, by destination id.
func (rt *Runtime) sinks() map[string]*processor {
	rt.drainsMu.Lock()
	defer rt.drainsMu.Unlock()
	out := make(map[string]*processor, len(rt.drains))
	for id, e := range rt.drains {
		if e.sink != nil {
			out[id] = e.sink
		}
	}
	return out
}

// RunDue runs, now, the work the clock has made due at every running
// destination: windows it has closed, buffers held long enough. The
// drains would do it within half a second; a test that advanced the
// clock wants it done before it asserts. The errors of the destinations
// that failed are joined; the others still ran.
func (rt *Runtime) RunDue(ctx context.Context) error {
	var errs []error
	for id, p := range rt.sinks() {
		err := recovered(func() error { return p.Tick(ctx, rt.cfg.Now()) })
		if err != nil {
			errs = append(errs, fmt.Errorf("destination %s: %w", id, err))
		}
	}
	return errors.Join(errs...)
}

// Flush commits destination destID's buffered rows now, whatever its
// batching settings, and returns how many rows that was.
func (rt *Runtime) Flush(ctx context.Context, destID string) (int64, error) {
	p := rt.sinks()[destID]
	if p == nil {
		return 0, fabricerr.New(http.StatusConflict, "DestinationNotRunning",
			"destination %s is not running (paused or failed to start); resume it, then flush", destID).WithResource(destID, "Destination")
	}
	var n int64
	err := recovered(func() (err error) { n, err = p.Flush(ctx); return err })
	return n, err
}

// AdvanceClock moves the emulator's clock d forward, saves how far it
// has been advanced (a restart on the same data directory keeps it), and
// runs the work that made due (RunDue) before it returns the new time. A
// destination whose due work failed is in the error; the clock moved
// anyway.
func (rt *Runtime) AdvanceClock(ctx context.Context, d time.Duration) (time.Time, error) {
	at, err := rt.cfg.Clock.Advance(d)
	if err != nil {
		return at, err
	}
	if err := rt.cfg.Store.PutClockOffset(ctx, rt.cfg.Clock.Offset()); err != nil {
		return at, err
	}
	return at, rt.RunDue(ctx)
}

// restoreClock moves a clock not yet advanced to the offset a previous
// run saved.
func (rt *Runtime) restoreClock(ctx context.Context) error {
	if rt.cfg.Clock.Offset() != 0 {
		return nil
	}
	off, err := rt.cfg.Store.ClockOffset(ctx)
	if err != nil {
		return err
	}
	_, err = rt.cfg.Clock.Advance(off)
	return err
}

// Buffered returns how many rows batching destination destID holds and
// since when (emulator clock); ok is false for a destination that does
// not batch or does not run.
func (rt *Runtime) Buffered(destID string) (rows int64, since time.Time, ok bool) {
	p := rt.sinks()[destID]
	if p == nil {
		return 0, time.Time{}, false
	}
	return p.Buffered()
}
