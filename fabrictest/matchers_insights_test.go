package fabrictest_test

import (
	"strings"
	"testing"

	. "github.com/onsi/gomega"

	"github.com/fabrictest/fabrictest/fabrictest"
)

// Metric names follow Fabric's data insights (fabric-docs, "Monitor the
// status and performance of an eventstream").
func sampleMetrics() fabrictest.NodeMetrics {
	return fabrictest.NodeMetrics{ID: "d-1", Name: "orders", Type: "Lakehouse", NodeType: "Destination",
		Metrics: map[string]int64{"InputEvents": 2, "OutputEvents": 1, "DataConversionErrors": 1}}
}

func TestHaveMetric(t *testing.T) {
	g := NewWithT(t)
	m := sampleMetrics()
	g.Expect(m).To(fabrictest.HaveMetric("DataConversionErrors", 1))
	g.Expect(m).To(fabrictest.HaveMetric("RuntimeErrors", 0)) // absent counts as 0
	g.Expect(m).NotTo(fabrictest.HaveMetric("OutputEvents", 2))
	g.Expect(m).To(fabrictest.HaveMetricAtLeast("InputEvents", 2))
	g.Expect(m).NotTo(fabrictest.HaveMetricAtLeast("InputEvents", 3))

	ok, msg := failure(m, fabrictest.HaveMetric("OutputEvents", 2))
	g.Expect(ok).To(BeFalse())
	want := "Expected Destination d-1 (Lakehouse) to have OutputEvents = 2, found 1; its counters:\n" +
		"    DataConversionErrors=1\n    InputEvents=2\n    OutputEvents=1"
	g.Expect(msg).To(Equal(want))

	ok, msg = failure(m, fabrictest.HaveMetricAtLeast("RuntimeErrors", 1))
	g.Expect(ok).To(BeFalse())
	g.Expect(msg).To(HavePrefix("Expected Destination d-1 (Lakehouse) to have RuntimeErrors >= 1, found 0; its counters:"))

	neg := fabrictest.HaveMetric("OutputEvents", 1)
	g.Expect(neg.Match(m)).To(BeTrue())
	g.Expect(neg.NegatedFailureMessage(m)).To(ContainSubstring("not to have OutputEvents = 1"))

	_, err := fabrictest.HaveMetric("x", 1).Match("not metrics")
	g.Expect(err).To(HaveOccurred())
	g.Expect(strings.Contains(m.String(), "InputEvents=2, OutputEvents=1")).To(BeTrue(), m.String())
}
