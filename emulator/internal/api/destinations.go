package api

import (
	"cmp"
	"context"
	"net/http"

	"github.com/fabrictest/fabrictest/emulator/internal/control"
	"github.com/fabrictest/fabrictest/emulator/internal/definition"
	"github.com/fabrictest/fabrictest/emulator/internal/eventstream"
	"github.com/fabrictest/fabrictest/emulator/internal/store"
	"github.com/fabrictest/fabrictest/emulator/wire"
)

// destinationJSON is a binding as the destinations routes answer it.
type destinationJSON = wire.Destination

func (a *API) renderDestination(d store.Destination) destinationJSON {
	spec, _ := eventstream.SpecOf(d) // a spec that does not decode renders no database
	j := destinationJSON{ID: d.ID, Type: d.Type, WorkspaceID: d.WorkspaceID, ItemID: d.ItemID, Table: d.Target, Database: spec.Database, Status: "Running"}
	if d.Type == "Eventhouse" {
		j.IngestionMode = cmp.Or(spec.IngestionMode, definition.ProcessedIngestion)
	}
	renderPolicy(&j, d, spec)
	if b := spec.Batching; b != nil {
		j.Batching = &wire.Batching{MinimumRows: b.MinimumRows, MaximumDurationInSeconds: b.MaximumDurationInSeconds}
	}
	if st, ok := a.rt.DrainStatus(d.ID); ok {
		j.Delivery = &wire.Delivery{Delivered: st.Written, FailedAttempts: st.Failures}
		if st.Panics > 0 || st.Skipped > 0 {
			j.Delivery.RecoveredPanics, j.Delivery.SkippedRecords = &st.Panics, &st.Skipped
		}
		if err := a.rt.KafkaHealth(context.Background(), d.ID); err != nil {
			j.Status = statusWarning // delivery resumes once Kafka answers again
			j.Delivery.LastKafkaError = a.scrub(err.Error())
		}
		if st.Err != nil {
			j.Status = "Failed"
			j.Delivery.LastError = a.scrub(st.Err.Error())
		}
		j.Delivery.Stopped = st.Stopped // by the fail policy: resume starts it again
		a.renderBuffer(d, j.Delivery)
		if n, last := a.rt.Rejections(d.ID); n > 0 {
			j.Delivery.RejectedRows, j.Delivery.LastRejection = n, last
		}
	} else if !a.cfg.Broker.Enabled() {
		j.Status = "Inactive"
	}
	return j
}

// bind serves POST …/eventstreams/{id}/destinations with
// {type, itemId, table?, database?, workspaceId?, ingestionMode?}. The
// same body twice is idempotent: the second answers 200 with the first
// binding.
func (a *API) bind(c *call) error {
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
		return c.JSON(http.StatusOK, a.renderDestination(b.Destination))
	}
	c.location("workspaces", b.Destination.WorkspaceID, "eventstreams", b.Destination.EventstreamID, "destinations", b.Destination.ID)
	return c.JSON(http.StatusCreated, a.renderDestination(b.Destination))
}

func (a *API) listDestinations(c *call) error {
	ds, err := a.plane.Destinations(c.r.Context(), c.caller(), esRef(c))
	if err != nil {
		return err
	}
	out := make([]destinationJSON, len(ds))
	for i, d := range ds {
		out[i] = a.renderDestination(d)
	}
	return list(c, out, 0)
}

func (a *API) unbind(c *call) error {
	return answerOK(c, a.plane.Unbind(c.r.Context(), c.caller(), nodeRef(c, "dest")))
}

// unbindAll removes every destination of the Eventstream (the internal
// bindings of its DerivedStreams stay).
func (a *API) unbindAll(c *call) error {
	return answerOK(c, a.plane.UnbindAll(c.r.Context(), c.caller(), esRef(c)))
}
