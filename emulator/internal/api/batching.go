package api

import (
	"time"

	"github.com/fabrictest/fabrictest/emulator/internal/store"
)

// renderBuffer adds a batching destination's buffer to its delivery
// figures: bufferedRows, and bufferedSince (emulator clock) when any.
func (a *API) renderBuffer(d store.Destination, delivery map[string]any) {
	n, since, ok := a.rt.Buffered(d.ID)
	if !ok {
		return
	}
	delivery["bufferedRows"] = n
	if n > 0 {
		delivery["bufferedSince"] = since.UTC().Format(time.RFC3339Nano)
	}
}
