package definition

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

// fakeResolver runs the source types in run (lower-cased type → canonical)
// and accepts every destination, recording what it was asked.
type fakeResolver struct {
	run      map[string]string
	srcErr   error
	dstErr   error
	bindings []Binding
	fields   map[string]string // binding field → the name the node gives it
}

func (f *fakeResolver) Source(_ context.Context, _ string, n *Node) (bool, error) {
	if f.srcErr != nil {
		return false, f.srcErr
	}
	c, ok := f.run[strings.ToLower(n.Type)]
	if ok {
		n.Raw["type"] = c
	}
	return ok, nil
}

func (f *fakeResolver) Destination(_ context.Context, b Binding, field func(string) string) (Target, error) {
	f.bindings = append(f.bindings, b)
	f.fields = map[string]string{}
	for _, k := range []string{"type", "itemId", "workspaceId", "database", "table"} {
		f.fields[k] = field(k)
	}
	if f.dstErr != nil {
		return Target{}, f.dstErr
	}
	ws := b.WorkspaceID
	if ws == "" {
		ws = "ws-1"
	}
	return Target{Type: b.Type, WorkspaceID: ws, ItemID: b.ItemID, Table: b.Table, Database: b.Database, IngestionMode: b.IngestionMode}, nil
}

func newResolver() *fakeResolver {
	return &fakeResolver{run: map[string]string{"sampledata": "SampleData"}}
}

const (
	lakeID  = "11111111-1111-1111-1111-111111111111"
	houseID = "22222222-2222-2222-2222-222222222222"
	flowID  = "33333333-3333-3333-3333-333333333333"
)

// topo renders a topology of the given node lists (JSON arrays).
func topo(sources, streams, operators, destinations string) string {
	return `{"sources":` + sources + `,"streams":` + streams + `,"operators":` + operators + `,"destinations":` + destinations + `}`
}

const (
	srcCE   = `[{"name":"src","type":"CustomEndpoint","properties":{}}]`
	defSt   = `[{"name":"main","type":"DefaultStream","inputNodes":[{"name":"src"}]}]`
	lakeDst = `[{"name":"lake","type":"Lakehouse","properties":{"itemId":"` + lakeID + `","deltaTable":"t1"},"inputNodes":[{"name":"main"}]}]`
)

// compile compiles topology s for a new Eventstream named es.
func compile(t *testing.T, r Resolver, s string) (*Plan, error) {
	t.Helper()
	return Compile(context.Background(), Input{Parts: Parts{Topology: json.RawMessage(s)}, WorkspaceID: "ws-1", StreamName: "es-stream"}, r)
}

func mustCompile(t *testing.T, r Resolver, s string) *Plan {
	t.Helper()
	p, err := compile(t, r, s)
	if err != nil {
		t.Fatalf("compile: %v", err)
	}
	return p
}

// refusal asserts err is a *Refusal of kind at field whose message holds msg.
func refusal(t *testing.T, err error, kind Kind, field, msg string) {
	t.Helper()
	var r *Refusal
	if !errors.As(err, &r) {
		t.Fatalf("got %v (%T), want a refusal", err, err)
	}
	if r.Kind != kind || r.Field != field || !strings.Contains(r.Message, msg) {
		t.Fatalf("got refusal {kind %d, field %q, %q}, want {kind %d, field %q, containing %q}", r.Kind, r.Field, r.Message, kind, field, msg)
	}
}
