package control

import (
	"strings"
	"testing"

	"github.com/fabrictest/fabrictest/emulator/internal/eventstream"
	"github.com/fabrictest/fabrictest/emulator/internal/fabricerr"
	"github.com/fabrictest/fabrictest/emulator/internal/store"
	"github.com/fabrictest/fabrictest/emulator/wire"
	"github.com/google/uuid"
)

func ptr[T any](v T) *T { return &v }

func TestBindUnbind(t *testing.T) {
	e := newEnv(t)
	req := BindRequest{Type: "lakehouse", ItemID: e.lakehouse.ID, Table: "events", ErrorPolicy: "DLQ", MinimumRows: ptr(int64(10))}
	b, err := e.plane.Bind(e.ctx, e.admin, e.ref(), req)
	must(t, err)
	if !b.Created || b.Destination.Type != "Lakehouse" || b.Destination.Target != "events" {
		t.Fatalf("binding %+v, want a created Lakehouse destination", b)
	}
	spec, err := eventstream.SpecOf(b.Destination)
	must(t, err)
	if spec.ErrorPolicy != eventstream.PolicyDLQ || spec.Batching == nil || spec.Batching.MinimumRows != 10 ||
		spec.Batching.MaximumDurationInSeconds != eventstream.DefaultMaximumDurationInSeconds {
		t.Fatalf("spec %+v: want dlq and 10 rows with the default duration", spec)
	}
	again, err := e.plane.Bind(e.ctx, e.admin, e.ref(), req)
	must(t, err)
	if again.Created || again.Destination.ID != b.Destination.ID {
		t.Fatalf("the same binding again: %+v, want %s not created", again, b.Destination.ID)
	}
	ref := NodeRef{Eventstream: e.ref(), Node: b.Destination.ID}
	if d, err := e.plane.Destination(e.ctx, e.viewer, ref, store.RoleViewer); err != nil || d.ID != b.Destination.ID {
		t.Fatalf("a viewer reads %+v, %v", d, err)
	}
	wantError(t, e.plane.Unbind(e.ctx, e.viewer, ref), 403, fabricerr.InsufficientPrivileges)
	must(t, e.plane.Unbind(e.ctx, e.admin, ref))
	wantError(t, e.plane.Unbind(e.ctx, e.admin, ref), 404, DestinationNotFound)
	if ds, err := e.plane.Destinations(e.ctx, e.admin, e.ref()); err != nil || len(ds) != 0 {
		t.Fatalf("destinations after unbind %+v, %v", ds, err)
	}
}

func TestBindTypedErrors(t *testing.T) {
	e := newEnv(t)
	lh := e.lakehouse.ID
	cases := []struct {
		name   string
		req    BindRequest
		status int
		code   wire.ErrorCode
		field  string
	}{
		{"unknown type", BindRequest{Type: "Warehouse", ItemID: lh, Table: "t"}, 400, fabricerr.InvalidInput, "type"},
		{"item not a GUID", BindRequest{Type: "Lakehouse", ItemID: "lh", Table: "t"}, 400, fabricerr.InvalidInput, "itemId"},
		{"unknown item", BindRequest{Type: "Lakehouse", ItemID: uuid.NewString(), Table: "t"}, 404, fabricerr.ItemNotFound, ""},
		{"unknown workspace", BindRequest{Type: "Lakehouse", ItemID: lh, Table: "t", WorkspaceID: uuid.NewString()}, 404, fabricerr.WorkspaceNotFound, ""},
		{"wrong item type", BindRequest{Type: "Reflex", ItemID: lh}, 400, fabricerr.InvalidInput, "itemId"},
		{"bad table", BindRequest{Type: "Lakehouse", ItemID: lh, Table: "123"}, 400, fabricerr.InvalidInput, "table"},
		{"ingestion mode on a Lakehouse", BindRequest{Type: "Lakehouse", ItemID: lh, Table: "t", IngestionMode: "DirectIngestion"}, 400, fabricerr.InvalidInput, "ingestionMode"},
		{"unknown policy", BindRequest{Type: "Lakehouse", ItemID: lh, Table: "t", ErrorPolicy: "ignore"}, 400, fabricerr.InvalidInput, "errorPolicy"},
		{"own stream as dead letters", BindRequest{Type: "Lakehouse", ItemID: lh, Table: "t", ErrorPolicy: "dlq", DeadLetterTopic: e.es.ID + ".x"}, 400, fabricerr.InvalidInput, "deadLetterTopic"},
		{"too few rows", BindRequest{Type: "Lakehouse", ItemID: lh, Table: "t", MinimumRows: ptr(int64(0))}, 400, fabricerr.InvalidInput, "minimumRows"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := e.plane.Bind(e.ctx, e.admin, e.ref(), c.req)
			fe := wantError(t, err, c.status, c.code)
			if c.field != "" && (len(fe.MoreDetails) != 1 || !strings.HasPrefix(fe.MoreDetails[0].Message, c.field+":")) {
				t.Fatalf("details %+v, want the field %s named", fe.MoreDetails, c.field)
			}
		})
	}
	if ds, err := e.st.ListDestinations(e.ctx, e.es.ID); err != nil || len(ds) != 0 {
		t.Fatalf("refused bindings stored %+v, %v", ds, err)
	}
}
