package fabrictest_test

import (
	"testing"
	"time"

	. "github.com/onsi/gomega"

	"github.com/fabrictest/fabrictest/fabrictest"
)

// TestAdvanceClockCommitsBatches: a Lakehouse destination deployed by a
// definition batches with Fabric's defaults (fabric-docs
// add-destination-lakehouse: minimumRows 100,000, maximumDurationInSeconds
// 120) when its node omits them; AdvanceClock commits the buffer without
// sleeping, FlushDestination commits it at once.
func TestAdvanceClockCommitsBatches(t *testing.T) {
	t.Parallel()
	g := NewWithT(t)
	env := fabrictest.Start(t, fabrictest.WithPartitions(1))
	ws := env.Workspace("clock")
	lh := ws.Lakehouse("clock_lh")
	es := ws.DeployEventstream("batched", map[string]any{
		"sources": []any{map[string]any{"name": "in", "type": "CustomEndpoint", "properties": map[string]any{}}},
		"streams": []any{map[string]any{"name": "batched-stream", "type": "DefaultStream", "properties": map[string]any{},
			"inputNodes": []any{map[string]any{"name": "in"}}}},
		"destinations": []any{map[string]any{"name": "lake", "type": "Lakehouse",
			"properties": map[string]any{"workspaceId": ws.ID, "itemId": lh.ID, "deltaTable": "events"},
			"inputNodes": []any{map[string]any{"name": "batched-stream"}}}},
	})
	dest := es.Topology().Destination("lake")
	table := lh.Table("events")

	before := env.Now()
	es.ProduceJSON(map[string]any{"n": 1}, map[string]any{"n": 2})
	_, err := table.TrySnapshot()
	g.Expect(err).To(HaveOccurred(), "nothing is committed before 120 s of emulator clock")
	g.Expect(es.Destinations()[0].Delivery.BufferedRows).To(BeEquivalentTo(2))

	at := env.AdvanceClock(2 * time.Minute)
	g.Expect(at.Sub(before)).To(BeNumerically(">=", 2*time.Minute))
	g.Expect(env.Now()).To(BeTemporally(">=", at))
	g.Expect(table).To(fabrictest.HaveDeltaRows(2))
	g.Expect(table).To(fabrictest.HaveCommits(1))

	es.ProduceJSON(map[string]any{"n": 3})
	g.Expect(es.FlushDestination(dest.ID)).To(BeEquivalentTo(1))
	g.Expect(table).To(fabrictest.HaveDeltaRows(3))
	g.Expect(table).To(fabrictest.HaveCommits(2))

	_, err = es.TryFlushDestination("00000000-0000-0000-0000-000000000000")
	g.Expect(err).To(fabrictest.HaveErrorCode("DestinationNotFound"))
	_, err = env.TryAdvanceClock(-time.Second)
	g.Expect(err).To(fabrictest.HaveErrorCode("InvalidInput"))
}
