//go:build container

package cdc

import (
	"context"
	"encoding/json"
	"sync"
	"testing"
	"time"
)

// memPositions keeps a position in memory.
type memPositions struct {
	mu  sync.Mutex
	pos string
}

func (m *memPositions) Load(context.Context) (string, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.pos, nil
}

func (m *memPositions) Save(_ context.Context, pos string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.pos = pos
	return nil
}

// collector is a Sink that keeps the decoded envelopes.
type collector struct {
	mu     sync.Mutex
	events []map[string]any
}

func (c *collector) sink(_ context.Context, evs []Event) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, ev := range evs {
		var m map[string]any
		if err := json.Unmarshal(ev.Value, &m); err != nil {
			return err
		}
		c.events = append(c.events, m)
	}
	return nil
}

// wait returns the events once there are n, failing after a while.
func (c *collector) wait(t *testing.T, n int) []map[string]any {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		c.mu.Lock()
		got := append([]map[string]any(nil), c.events...)
		c.mu.Unlock()
		if len(got) >= n {
			return got
		}
		time.Sleep(100 * time.Millisecond)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	t.Fatalf("got %d events, want %d: %v", len(c.events), n, c.events)
	return nil
}

// field reads a nested field of an envelope ("after.id").
func field(m map[string]any, path ...string) any {
	var v any = m
	for _, p := range path {
		mm, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = mm[p]
	}
	return v
}
