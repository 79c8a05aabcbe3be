package api

import (
	"strings"

	"github.com/fabrictest/fabrictest/emulator/internal/eventstream"
)

// sourceStatus is a definition source's runtime status: Paused when it or
// its Eventstream is, Running for a CustomEndpoint, and for a run source
// its runner's state (Creating until it first delivered or joined, Failed
// with the reason), or Unknown without a broker.
func (a *API) sourceStatus(props eventstream.Model, n *node) (string, error) {
	id := strings.ToLower(n.ID())
	if props.IsPaused(id) || props.StreamPaused() {
		return statusPaused, nil
	}
	if n.Is("CustomEndpoint") {
		return statusRunning, nil
	}
	found, ready, err := a.rt.SourceState(id)
	if !found {
		return statusUnknown, nil
	}
	switch {
	case err != nil:
		return statusFailed, err
	case !ready:
		return statusCreating, nil
	}
	return statusRunning, nil
}
