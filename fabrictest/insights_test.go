package fabrictest_test

import (
	"testing"

	. "github.com/onsi/gomega"

	"github.com/fabrictest/fabrictest/fabrictest"
)

// Data insights and runtime logs of a Lakehouse destination, under
// Fabric's metric names (fabric-docs, "Monitor the status and performance
// of an eventstream").
func TestDataInsightsOfALakehouseDestination(t *testing.T) {
	t.Parallel()
	g := NewWithT(t)
	env := fabrictest.Start(t, fabrictest.WithPartitions(1))
	ws := env.Workspace("insights")
	es := ws.Eventstream("readings")
	dest := es.BindLakehouse(ws.Lakehouse("insights_lh"), "readings")

	es.ProduceJSON(map[string]any{"q": 1})
	es.ProduceJSON(map[string]any{"q": "high"}) // q's column holds integers

	m := dest.Metrics()
	g.Expect(m).To(fabrictest.HaveMetric(fabrictest.MetricInputEvents, 2))
	g.Expect(m).To(fabrictest.HaveMetric(fabrictest.MetricOutputEvents, 1))
	g.Expect(m).To(fabrictest.HaveMetric(fabrictest.MetricDataConversionErrors, 1))
	g.Expect(m).To(fabrictest.HaveMetricAtLeast(fabrictest.MetricOutputEventBytes, int64(len(`{"q":1}`))))
	g.Expect(m.NodeType).To(Equal("Destination"))
	g.Expect(fabrictest.HaveMetric(fabrictest.MetricRuntimeErrors, 3).FailureMessage(m)).To(
		And(ContainSubstring("to have RuntimeErrors = 3, found 0"), ContainSubstring("DataConversionErrors=1"), ContainSubstring("InputEvents=2")))

	logs := dest.RuntimeLogs(fabrictest.LogLevel("Warning"))
	g.Expect(logs).To(HaveLen(1))
	g.Expect(logs[0].Message).To(ContainSubstring(`"q"`))
	g.Expect(logs[0].NodeID).To(Equal(dest.ID))
	g.Expect(dest.RuntimeLogs(fabrictest.LogLevel("Error"))).To(BeEmpty())
	g.Expect(es.RuntimeLogs(fabrictest.LogKeyword("Q"))).To(HaveLen(1))

	g.Expect(es.StreamMetrics()).To(fabrictest.HaveMetric(fabrictest.MetricIncomingMessages, 2))
	all := es.Metrics()
	n, ok := all.Node(dest.ID)
	g.Expect(ok).To(BeTrue())
	g.Expect(n).To(fabrictest.HaveMetric(fabrictest.MetricDataConversionErrors, 1))
	_, ok = all.Node(es.DatasourceID)
	g.Expect(ok).To(BeTrue())
}
