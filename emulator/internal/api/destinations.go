package api

import (
	"net/http"

	"github.com/fabrictest/fabrictest/emulator/internal/control"
	"github.com/fabrictest/fabrictest/emulator/internal/store"
	"github.com/fabrictest/fabrictest/emulator/wire"
)

// destinationJSON is a binding as the destinations routes answer it.
type destinationJSON = wire.Destination

// bind serves POST …/eventstreams/{id}/destinations with
// {type, itemId, table?, database?, workspaceId?, ingestionMode?}. The
// same body twice is idempotent: the second answers 200 with the first
// binding.
func (a destinationHandlers) bind(c *call) error {
	if _, err := a.item(c, TypeEventstream, store.RoleContributor); err != nil {
		return err // the caller's reach first, as every route answers
	}
	var req control.BindRequest
	if err := a.decode(c, &req); err != nil {
		return err
	}
	b, err := a.plane.Bind(c.r.Context(), c.caller(), esRef(c), req)
	if err != nil {
		return err
	}
	if !b.Created {
		return c.JSON(http.StatusOK, a.plane.DestinationView(b.Destination))
	}
	c.location("workspaces", b.Destination.WorkspaceID, "eventstreams", b.Destination.EventstreamID, "destinations", b.Destination.ID)
	return c.JSON(http.StatusCreated, a.plane.DestinationView(b.Destination))
}

func (a destinationHandlers) listDestinations(c *call) error {
	ds, err := a.plane.Destinations(c.r.Context(), c.caller(), esRef(c))
	if err != nil {
		return err
	}
	out := make([]destinationJSON, len(ds))
	for i, d := range ds {
		out[i] = a.plane.DestinationView(d)
	}
	return list(c, out, 0)
}

func (a destinationHandlers) unbind(c *call) error {
	return answerOK(c, a.plane.Unbind(c.r.Context(), c.caller(), nodeRef(c, "dest")))
}

// unbindAll removes every destination of the Eventstream (the internal
// bindings of its DerivedStreams stay).
func (a destinationHandlers) unbindAll(c *call) error {
	return answerOK(c, a.plane.UnbindAll(c.r.Context(), c.caller(), esRef(c)))
}
