package fabrictest_test

import (
	"errors"
	"testing"
	"time"

	. "github.com/onsi/gomega"

	"github.com/fabrictest/fabrictest/emulator/eventhouse"
	"github.com/fabrictest/fabrictest/fabrictest"
)

func TestEventhouseDestination(t *testing.T) {
	t.Parallel()
	g := NewWithT(t)
	env := fabrictest.Start(t, fabrictest.WithKustoFake())
	g.Expect(env.KQLURL()).To(HavePrefix("http://127.0.0.1:"))
	g.Expect(env.KustoFake()).NotTo(BeNil())
	ws := env.Workspace("rti")
	es := ws.Eventstream("telemetry")
	eh := ws.Eventhouse("telemetry")
	g.Expect(eh.Database).To(Equal("telemetry"))
	g.Expect(eh.DatabaseID).NotTo(BeEmpty())
	g.Expect(eh.QueryURI).To(Equal(env.KQLURL()))

	// A table and a field named kind (a keyword real Kusto refuses bare),
	// values with commas, quotes and line breaks.
	d := es.BindEventhouse(eh, "kind")
	g.Expect(d.Database).To(Equal("telemetry"))
	es.ProduceJSON(
		map[string]any{"kind": "a,b", "n": 1, "note": "say \"hi\"\nbye"},
		map[string]any{"kind": "late", "n": 2, "extra": 2.5},
	)
	rows := env.KustoRows("telemetry", "kind")
	g.Expect(rows).To(fabrictest.HaveRowsMatching(
		map[string]any{"kind": "a,b", "n": 1, "note": "say \"hi\"\nbye", "extra": nil},
		map[string]any{"kind": "late", "n": 2, "note": "", "extra": 2.5},
	))
	g.Expect(rows).To(fabrictest.HaveColumns("kind", "n", "note", "extra"))
	g.Expect(env.KustoCount("telemetry", "kind")).To(BeEquivalentTo(2))
	g.Expect(eh.Rows("kind")).To(HaveLen(2))

	// Another database of the Eventhouse: the binding moves there.
	archive := eh.AddDatabase("archive")
	g.Expect(archive.EventhouseID).To(Equal(eh.ID))
	g.Expect(es.BindEventhouse(eh, "kind", archive.Name).ID).To(Equal(d.ID))
	es.ProduceJSON(map[string]any{"kind": "archived", "n": 3})
	g.Eventually(eh.RowsFunc("kind", "archive")).WithTimeout(5 * time.Second).
		Should(fabrictest.HaveRowsMatching(map[string]any{"kind": "archived", "n": 3}))
	g.Expect(eh.Rows("kind")).To(HaveLen(2))

	// Unknown database and table: an API error and an engine error.
	_, err := es.TryBindEventhouse(eh, "t", "nope")
	g.Expect(err).To(fabrictest.HaveErrorCode("ItemNotFound"))
	_, err = env.TryKustoRows("telemetry", "missing")
	var ee *eventhouse.EngineError
	g.Expect(errors.As(err, &ee)).To(BeTrue(), "%v", err)
}

func TestEventhouseWithoutEngine(t *testing.T) {
	t.Parallel()
	g := NewWithT(t)
	env := fabrictest.Start(t)
	ws := env.Workspace("rti")
	es := ws.Eventstream("telemetry")
	eh := ws.Eventhouse("telemetry")
	g.Expect(eh.QueryURI).To(BeEmpty())
	es.BindEventhouse(eh, "T")

	_, err := es.TryProduce(map[string]any{"n": 1})
	g.Expect(err).To(fabrictest.HaveErrorCode("DestinationFailed"))
	g.Expect(err).To(MatchError(ContainSubstring("--kql-url")))

	_, err = env.TryKustoRows("telemetry", "T")
	g.Expect(err).To(MatchError(ContainSubstring("fabrictest.WithKustoFake()")))
	msg := failureOf(func(tb testing.TB) { env.WithT(tb).KustoRows("telemetry", "T") })
	g.Expect(msg).To(ContainSubstring("the environment has no Kusto engine"))

	_, err = fabrictest.New(t.Context(), fabrictest.WithKQL(" "))
	g.Expect(err).To(MatchError("WithKQL: empty URL"))
}
