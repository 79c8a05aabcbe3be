package store

import (
	"sync"
	"sync/atomic"
)

// readCache keeps the answers of the look-ups every data-plane call makes
// (GetWorkspace, GetItem, RoleOf) for as long as the database has not been
// written since they were read.
//
// The store counts its writes in a generation: every write moves it on
// before it starts and after it ends (handle.go). A look-up notes the
// generation before it queries and keeps its answer only if the
// generation is still the same when the answer arrives; the cache serves
// answers only of the current generation. An answer is thus served only if
// no write began or ended between the moment before it was read and the
// moment it is served, so a write is seen by every look-up that starts
// after the write returned: the cache can be late by nothing.
//
// The store is its database's only writer (one process: the emulator);
// a change made to the file by another program is not seen until the
// store's own next write.
type readCache struct {
	gen atomic.Uint64

	mu sync.Mutex
	at uint64 // the generation every entry of m was read at
	m  map[cacheKey]any
}

// maxCached bounds the entries; the cache starts afresh when it is full.
const maxCached = 4096

// cacheKey names one look-up: its kind and its arguments.
type cacheKey struct {
	kind byte
	a, b string
}

// Kinds of look-up.
const (
	cachedWorkspace byte = iota + 1
	cachedItem
	cachedRole
)

func newReadCache() *readCache {
	return &readCache{m: map[cacheKey]any{}}
}

// bump moves the cache to a new generation: every entry is stale.
func (c *readCache) bump() { c.gen.Add(1) }

// now is the generation a look-up notes before it queries.
func (c *readCache) now() uint64 { return c.gen.Load() }

// get returns the entry of k if it was read at the current generation.
func (c *readCache) get(k cacheKey) (any, bool) {
	g := c.gen.Load()
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.at != g {
		clear(c.m)
		c.at = g
		return nil, false
	}
	v, ok := c.m[k]
	return v, ok
}

// put keeps v for k if the generation is still g, the one noted before v
// was read; otherwise a write came in between and v may be stale.
func (c *readCache) put(k cacheKey, v any, g uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.gen.Load() != g {
		return
	}
	if c.at != g || len(c.m) >= maxCached {
		clear(c.m)
		c.at = g
	}
	c.m[k] = v
}
