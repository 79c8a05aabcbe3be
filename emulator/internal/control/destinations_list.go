package control

import (
	"context"
	"slices"

	"github.com/fabrictest/fabrictest/emulator/internal/eventstream"
	"github.com/fabrictest/fabrictest/emulator/internal/store"
)

// DestinationNotFound answers a destination id the Eventstream has not.
const DestinationNotFound = "DestinationNotFound"

// Internal reports whether d is a DerivedStream's internal binding: it
// fills the stream's topic and is never listed as a destination.
func Internal(d store.Destination) bool { return d.Type == eventstream.DerivedStreamType }

// UserDestinations lists the bindings of Eventstream esID the user sees:
// all but the internal ones.
func (p *Plane) UserDestinations(ctx context.Context, esID string) ([]store.Destination, error) {
	ds, err := p.cfg.Store.ListDestinations(ctx, esID)
	return slices.DeleteFunc(ds, Internal), err
}
