// Package clock is the emulator's controllable clock: emulator time is
// the wall clock plus an offset that only grows. A test advances it
// (POST /_emulator/clock) instead of sleeping, and everything that waits
// on emulator time (a destination's batching, arrival-time windows,
// SampleData timestamps) follows it.
package clock

import (
	"errors"
	"sync"
	"time"
)

// ErrBackwards is returned by Advance for a negative duration: the clock
// never goes back.
var ErrBackwards = errors.New("the emulator clock only moves forward")

// Clock is wall time plus an offset that Advance grows. The zero value is
// not usable; call New. It is safe for concurrent use.
type Clock struct {
	wall func() time.Time

	mu       sync.Mutex
	offset   time.Duration
	advanced chan struct{} // closed and replaced on every Advance
}

// New returns a clock that reads wall (time.Now when nil), not yet advanced.
func New(wall func() time.Time) *Clock {
	if wall == nil {
		wall = time.Now
	}
	return &Clock{wall: wall, advanced: make(chan struct{})}
}

// Now is the emulator's time: the wall clock plus the offset.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	off := c.offset
	c.mu.Unlock()
	return c.wall().Add(off)
}

// Offset is how far the clock has been advanced in all.
func (c *Clock) Offset() time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.offset
}

// Advance moves the clock d forward, wakes every waiter of Advanced and
// returns the new time. A negative d is refused with ErrBackwards.
func (c *Clock) Advance(d time.Duration) (time.Time, error) {
	if d < 0 {
		return c.Now(), ErrBackwards
	}
	c.mu.Lock()
	c.offset += d
	close(c.advanced)
	c.advanced = make(chan struct{})
	off := c.offset
	c.mu.Unlock()
	return c.wall().Add(off), nil
}

// Advanced returns a channel closed at the next Advance: a waiter selects
// on it beside its own timer, and takes a new channel after it fires.
func (c *Clock) Advanced() <-chan struct{} {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.advanced
}
