package clock

import (
	"errors"
	"sync"
	"testing"
	"time"
)

// The clock the issue asks for (issue 15, item 2): wall time plus an
// offset that only moves forward, waking waiters when it does.

func TestAdvanceMovesNowForward(t *testing.T) {
	wall := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	c := New(func() time.Time { return wall })
	if got := c.Now(); !got.Equal(wall) {
		t.Fatalf("Now before any advance = %v, want the wall clock %v", got, wall)
	}
	at, err := c.Advance(120 * time.Second)
	if err != nil {
		t.Fatal(err)
	}
	want := wall.Add(120 * time.Second)
	if !at.Equal(want) || !c.Now().Equal(want) || c.Offset() != 120*time.Second {
		t.Fatalf("after Advance(120s): returned %v, Now %v, offset %v; want %v", at, c.Now(), c.Offset(), want)
	}
	c.Advance(time.Minute)
	if c.Offset() != 3*time.Minute {
		t.Fatalf("advances add up: offset %v, want 3m", c.Offset())
	}
}

func TestAdvanceNeverGoesBack(t *testing.T) {
	c := New(nil)
	c.Advance(time.Hour)
	if _, err := c.Advance(-time.Minute); !errors.Is(err, ErrBackwards) {
		t.Fatalf("Advance(-1m) = %v, want ErrBackwards", err)
	}
	if c.Offset() != time.Hour {
		t.Fatalf("a refused advance changed the offset to %v", c.Offset())
	}
	if d := time.Until(c.Now()); d < 59*time.Minute {
		t.Fatalf("Now is %v ahead of the wall clock, want about an hour", d)
	}
}

func TestAdvancedWakesEveryWaiter(t *testing.T) {
	c := New(nil)
	const waiters = 5
	var ready, woke sync.WaitGroup
	ready.Add(waiters)
	woke.Add(waiters)
	for range waiters {
		go func() {
			ch := c.Advanced()
			ready.Done()
			<-ch
			woke.Done()
		}()
	}
	ready.Wait()
	select {
	case <-c.Advanced():
		t.Fatal("Advanced fired before any advance")
	default:
	}
	c.Advance(time.Second)
	done := make(chan struct{})
	go func() { woke.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("waiters were not woken by Advance")
	}
	select {
	case <-c.Advanced():
		t.Fatal("the channel taken after an advance is already closed")
	default:
	}
}
