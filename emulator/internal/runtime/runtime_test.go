package runtime

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fabrictest/fabrictest/emulator/delta"
	"github.com/fabrictest/fabrictest/emulator/internal/broker"
	"github.com/fabrictest/fabrictest/emulator/internal/eventstream"
	"github.com/fabrictest/fabrictest/emulator/internal/insights"
	"github.com/fabrictest/fabrictest/emulator/internal/store"
	"github.com/twmb/franz-go/pkg/kgo"
)

// fixture is a store with one Eventstream bound to one Lakehouse table, an
// embedded broker, and the OneLake directory the drains write.
type fixture struct {
	t       *testing.T
	ctx     context.Context
	st      *store.Store
	b       *broker.Broker
	onelake string
	es      store.Item
	dest    store.Destination
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	ctx := context.Background()
	st, err := store.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	b, err := broker.Embedded(broker.EmbeddedConfig{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(b.Close)
	f := &fixture{t: t, ctx: ctx, st: st, b: b, onelake: t.TempDir()}
	must(t, st.CreateWorkspace(ctx, store.Workspace{ID: "w", DisplayName: "w"},
		store.RoleAssignment{WorkspaceID: "w", PrincipalID: "p", PrincipalType: "User", Role: store.RoleAdmin}))
	must(t, st.CreateItem(ctx, store.Item{ID: "lh", WorkspaceID: "w", Type: "Lakehouse", DisplayName: "lh"}))
	f.es = store.Item{ID: "es", WorkspaceID: "w", Type: eventstream.ItemType, DisplayName: "es"}
	must(t, st.CreateItem(ctx, f.es))
	m := eventstream.Model{Streams: []eventstream.Stream{{ID: "ds", Name: "es-stream",
		Type: eventstream.DefaultStreamType, Topic: eventstream.DefaultTopic("es", "ds")}}}
	must(t, eventstream.Save(ctx, st, &f.es, m))
	f.dest = store.Destination{ID: "d1", EventstreamID: "es", Type: "Lakehouse", WorkspaceID: "w", ItemID: "lh",
		Target: "t1", Spec: eventstream.Spec{}.Encode(), CreatedAt: time.Now()}
	must(t, st.CreateDestination(ctx, f.dest))
	return f
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func (f *fixture) runtime() *Runtime {
	rt := New(Config{Store: f.st, Broker: f.b, OneLakeDir: f.onelake})
	f.t.Cleanup(func() { _ = rt.Close(context.Background()) })
	return rt
}

// produce writes n events and returns where they landed.
func (f *fixture) produce(n int, tag string) []broker.Position {
	f.t.Helper()
	recs := make([]*kgo.Record, n)
	for i := range recs {
		recs[i] = &kgo.Record{Value: fmt.Appendf(nil, `{"tag": %q, "i": %d}`, tag, i)}
	}
	pos, err := f.b.Produce(f.ctx, eventstream.DefaultTopic("es", "ds"), recs)
	must(f.t, err)
	return pos
}

// rows reads the destination's table: how many rows per tag.
func (f *fixture) rows() map[string]int {
	f.t.Helper()
	snap, err := delta.ReadTable(filepath.Join(f.onelake, "w", "lh", "Tables", "t1"))
	must(f.t, err)
	out := map[string]int{}
	for _, r := range snap.Rows {
		out[fmt.Sprint(r["tag"])]++
	}
	return out
}

func (f *fixture) setPaused(pause bool, ids ...string) {
	f.t.Helper()
	es, m, err := eventstream.Load(f.ctx, f.st, "es")
	must(f.t, err)
	m.SetPaused(pause, ids...)
	must(f.t, eventstream.Save(f.ctx, f.st, &es, m))
	f.es = es
}

func (f *fixture) model() eventstream.Model {
	f.t.Helper()
	_, m, err := eventstream.Load(f.ctx, f.st, "es")
	must(f.t, err)
	return m
}

// TestDrainLifecycle: Sync starts a drain per destination, delivers, keeps
// a drain that did not change (its counters go on), restarts one whose
// operators changed, and stops drains whose binding or Eventstream is gone.
func TestDrainLifecycle(t *testing.T) {
	f := newFixture(t)
	rt := f.runtime()
	if _, ok := rt.DrainStatus("d1"); ok {
		t.Fatal("a drain runs before Sync")
	}
	must(t, rt.Sync(f.ctx, "es"))
	must(t, rt.Await(f.ctx, "es", f.produce(3, "a")))
	if st, ok := rt.DrainStatus("d1"); !ok || st.Written != 3 {
		t.Fatalf("after 3 events: %+v, %v", st, ok)
	}
	must(t, rt.Sync(f.ctx, "es")) // nothing changed: the same drain goes on
	if st, _ := rt.DrainStatus("d1"); st.Written != 3 {
		t.Fatalf("an unchanged destination restarted: written %d", st.Written)
	}
	es, m, err := eventstream.Load(f.ctx, f.st, "es")
	must(t, err)
	m.Operators = []byte(`[{"type":"Filter","condition":{"field":"i","op":"gt","value":0}}]`)
	must(t, eventstream.Save(f.ctx, f.st, &es, m))
	must(t, rt.Sync(f.ctx, "es"))
	if st, _ := rt.DrainStatus("d1"); st.Written != 0 {
		t.Fatalf("new operators did not restart the drain: written %d", st.Written)
	}
	must(t, rt.Await(f.ctx, "es", f.produce(3, "b")))
	if got := f.rows(); got["a"] != 3 || got["b"] != 2 {
		t.Fatalf("rows %v, want a:3 and b:2 (the filter drops i=0)", got)
	}
	must(t, rt.Stop("d1"))
	must(t, f.st.DeleteDestination(f.ctx, "d1"))
	must(t, rt.Sync(f.ctx, "es"))
	if _, ok := rt.DrainStatus("d1"); ok {
		t.Fatal("a deleted binding still has a drain")
	}
	must(t, f.st.CreateDestination(f.ctx, store.Destination{ID: "d2", EventstreamID: "es", Type: "Lakehouse",
		WorkspaceID: "w", ItemID: "lh", Target: "t2", Spec: eventstream.Spec{}.Encode(), CreatedAt: time.Now()}))
	must(t, rt.Sync(f.ctx, "es"))
	if _, ok := rt.DrainStatus("d2"); !ok {
		t.Fatal("a new binding has no drain")
	}
	must(t, f.st.DeleteItem(f.ctx, "es"))
	must(t, rt.Sync(f.ctx, "es"))
	if _, ok := rt.DrainStatus("d2"); ok {
		t.Fatal("the drain of a deleted Eventstream runs on")
	}
}

// TestReconcileAfterRestart: a new runtime over the same store and broker
// (a restarted server) picks every destination up with SyncAll and reads on
// from its journal: what was delivered is not delivered again, what was
// produced while nothing ran is.
func TestReconcileAfterRestart(t *testing.T) {
	f := newFixture(t)
	rt := New(Config{Store: f.st, Broker: f.b, OneLakeDir: f.onelake})
	must(t, rt.Sync(f.ctx, "es"))
	must(t, rt.Await(f.ctx, "es", f.produce(5, "before")))
	ctx, cancel := context.WithTimeout(f.ctx, 10*time.Second)
	defer cancel()
	must(t, rt.Close(ctx))
	if err := rt.Sync(f.ctx, "es"); err != nil {
		t.Fatal(err)
	}
	down := f.produce(4, "down")
	rt2 := f.runtime()
	must(t, rt2.SyncAll(f.ctx))
	must(t, rt2.Await(f.ctx, "es", down))
	if st, _ := rt2.DrainStatus("d1"); st.Written != 4 {
		t.Fatalf("the restarted drain wrote %d records, want the 4 produced while down", st.Written)
	}
	if got := f.rows(); got["before"] != 5 || got["down"] != 4 {
		t.Fatalf("rows %v, want before:5 down:4 (nothing twice)", got)
	}
}

// TestPauseResume: a paused destination has no drain; resuming it with
// WhenLastStopped delivers what came meanwhile, with Now skips it.
func TestPauseResume(t *testing.T) {
	f := newFixture(t)
	rt := f.runtime()
	must(t, rt.Sync(f.ctx, "es"))
	must(t, rt.Await(f.ctx, "es", f.produce(1, "first")))

	f.setPaused(true, "d1")
	must(t, rt.Sync(f.ctx, "es"))
	if _, ok := rt.DrainStatus("d1"); ok {
		t.Fatal("a paused destination still drains")
	}
	f.produce(2, "kept")
	must(t, rt.Seek(f.ctx, f.model(), f.dest, StartWhenLastStopped, time.Time{}))
	f.setPaused(false, "d1")
	must(t, rt.Sync(f.ctx, "es"))
	must(t, rt.Await(f.ctx, "es", f.produce(1, "after1")))

	f.setPaused(true, "d1")
	must(t, rt.Sync(f.ctx, "es"))
	f.produce(3, "skipped")
	must(t, rt.Seek(f.ctx, f.model(), f.dest, StartNow, time.Time{}))
	f.setPaused(false, "d1")
	must(t, rt.Sync(f.ctx, "es"))
	must(t, rt.Await(f.ctx, "es", f.produce(1, "after2")))

	got := f.rows()
	want := map[string]int{"first": 1, "kept": 2, "after1": 1, "after2": 1}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("rows %v, want %v", got, want)
	}
}

// TestSyncWithoutBroker: nothing runs without a broker, and Sync says so by
// doing nothing rather than failing.
func TestSyncWithoutBroker(t *testing.T) {
	f := newFixture(t)
	rt := New(Config{Store: f.st, Broker: broker.None(), OneLakeDir: f.onelake})
	must(t, rt.Sync(f.ctx, "es"))
	must(t, rt.SyncAll(f.ctx))
	if _, ok := rt.DrainStatus("d1"); ok {
		t.Fatal("a drain runs without a broker")
	}
}

// TestFailedStartStaysUntilSeek: a destination that cannot start is Failed
// with its error; a Sync for another change leaves it (and returns no
// error), while Seek (a resume) makes the next Sync try it again.
func TestFailedStartStaysUntilSeek(t *testing.T) {
	f := newFixture(t)
	bad := store.Destination{ID: "bad", EventstreamID: "es", Type: "Nowhere", WorkspaceID: "w", ItemID: "lh",
		Target: "x", Spec: eventstream.Spec{}.Encode(), CreatedAt: time.Now()}
	must(t, f.st.CreateDestination(f.ctx, bad))
	rt := f.runtime()
	if err := rt.Sync(f.ctx, "es"); err == nil {
		t.Fatal("Sync hid a destination that cannot start")
	}
	if !rt.StartFailed("bad") {
		t.Fatal("the destination is not Failed")
	}
	if _, ok := rt.DrainStatus("d1"); !ok {
		t.Fatal("one failing destination kept the other from starting")
	}
	logs := rt.Insights("bad").Logs()
	if len(logs) != 1 || logs[0].Level != insights.LevelError || !strings.Contains(logs[0].Message, "could not start") ||
		!strings.Contains(logs[0].Message, "Nowhere destinations are not available") {
		t.Fatalf("the destination's runtime logs hold %+v, want one error naming why it could not start", logs)
	}
	if err := rt.Sync(f.ctx, "es"); err != nil {
		t.Fatalf("an unchanged Failed destination failed a later Sync: %v", err)
	}
	must(t, rt.Seek(f.ctx, f.model(), bad, StartWhenLastStopped, time.Time{}))
	if err := rt.Sync(f.ctx, "es"); err == nil {
		t.Fatal("Sync after Seek did not try the Failed destination again")
	}
}
