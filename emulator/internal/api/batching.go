package api

import (
	"time"

	"github.com/fabrictest/fabrictest/emulator/internal/store"
	"github.com/fabrictest/fabrictest/emulator/wire"
)

// renderBuffer adds a batching destination's buffer to its delivery
// figures: bufferedRows, and bufferedSince (emulator clock) when any.
func (a *API) renderBuffer(d store.Destination, delivery *wire.Delivery) {
	n, since, ok := a.rt.Buffered(d.ID)
	if !ok {
		return
	}
	delivery.BufferedRows = &n
	if n > 0 {
		delivery.BufferedSince = since.UTC().Format(time.RFC3339Nano)
	}
}
