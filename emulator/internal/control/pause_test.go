package control

import (
	"slices"
	"testing"

	"github.com/fabrictest/fabrictest/emulator/internal/fabricerr"
	"github.com/fabrictest/fabrictest/emulator/wire"
	"github.com/google/uuid"
)

func TestPauseResumeEventstream(t *testing.T) {
	e := newEnv(t)
	stream := e.model().Streams[0].ID
	must(t, e.plane.PauseEventstream(e.ctx, e.admin, e.ref()))
	m := e.model()
	if !m.StreamPaused() || !slices.Contains(m.Paused, stream) {
		t.Fatalf("paused set %v: want the DefaultStream %s in it", m.Paused, stream)
	}
	if e.changed() != 1 {
		t.Fatalf("OnChange saw the Eventstream %d times after pause, want 1", e.changed())
	}
	must(t, e.plane.ResumeEventstream(e.ctx, e.admin, e.ref(), Start{StartType: "now"}))
	if m := e.model(); m.StreamPaused() || len(m.Paused) != 0 {
		t.Fatalf("paused set %v after resume, want empty", m.Paused)
	}
	if e.changed() != 2 {
		t.Fatalf("OnChange saw the Eventstream %d times after resume, want 2", e.changed())
	}
}

func TestPauseTypedErrors(t *testing.T) {
	e := newEnv(t)
	cases := []struct {
		name   string
		err    error
		status int
		code   wire.ErrorCode
	}{
		{"viewer pauses", e.plane.PauseEventstream(e.ctx, e.viewer, e.ref()), 403, fabricerr.InsufficientPrivileges},
		{"stranger pauses", e.plane.PauseEventstream(e.ctx, Caller{ID: uuid.NewString()}, e.ref()), 403, fabricerr.InsufficientPrivileges},
		{"unknown workspace", e.plane.PauseEventstream(e.ctx, e.admin, ItemRef{WorkspaceID: "nope", ID: e.es.ID}), 404, fabricerr.WorkspaceNotFound},
		{"not an Eventstream", e.plane.PauseEventstream(e.ctx, e.admin, ItemRef{WorkspaceID: e.ws, ID: e.lakehouse.ID}), 404, fabricerr.ItemNotFound},
		{"bad start type", e.plane.ResumeEventstream(e.ctx, e.admin, e.ref(), Start{StartType: "Later"}), 400, fabricerr.InvalidInput},
		{"bad custom time", e.plane.ResumeEventstream(e.ctx, e.admin, e.ref(), Start{StartType: "CustomTime", CustomStartDateTime: "yesterday"}), 400, fabricerr.InvalidInput},
		{"unknown source", e.plane.PauseSource(e.ctx, e.admin, NodeRef{Eventstream: e.ref(), Node: uuid.NewString()}), 404, fabricerr.EntityNotFound},
		{"unknown destination", e.plane.PauseDestination(e.ctx, e.admin, NodeRef{Eventstream: e.ref(), Node: uuid.NewString()}), 404, DestinationNotFound},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { wantError(t, c.err, c.status, c.code) })
	}
	if m := e.model(); len(m.Paused) != 0 || e.changed() != 0 {
		t.Fatalf("refused calls changed the Eventstream: paused %v, %d changes", m.Paused, e.changed())
	}
}

func TestStartCheck(t *testing.T) {
	for in, want := range map[string]string{"now": "Now", "WHENLASTSTOPPED": "WhenLastStopped"} {
		got, _, err := Start{StartType: in}.check()
		if err != nil || got != want {
			t.Errorf("%q: got %q, %v; want %q", in, got, err, want)
		}
	}
	typ, at, err := Start{StartType: "customtime", CustomStartDateTime: "2026-01-02T15:04:05Z"}.check()
	if err != nil || typ != "CustomTime" || at.Year() != 2026 || at.Hour() != 15 {
		t.Fatalf("CustomTime: got %q %v %v", typ, at, err)
	}
}
