package fabrictest

import (
	"text/template"

	"github.com/onsi/gomega/gcustom"
	"github.com/onsi/gomega/types"
)

// Matchers for data insights (NodeMetrics, as Destination.Metrics,
// Eventstream.StreamMetrics and their Try… forms return).

// metricWant is what a metric matcher wants.
type metricWant struct {
	Name  string
	Value int64
	Op    string // "=" or ">="
}

// HaveMetric succeeds when the node's metric name (Fabric's name, such as
// "DataConversionErrors") is exactly want. A metric the node does not have
// counts as 0. On failure it prints every counter of the node.
//
//	Eventually(dest.TryMetrics).Should(fabrictest.HaveMetric("DataConversionErrors", 1))
func HaveMetric(name string, want int64) types.GomegaMatcher {
	return metricMatcher(metricWant{Name: name, Value: want, Op: "="}, func(got int64) bool { return got == want })
}

// HaveMetricAtLeast succeeds when the node's metric name is want or more
// (a counter that other traffic may also move). On failure it prints every
// counter of the node.
func HaveMetricAtLeast(name string, want int64) types.GomegaMatcher {
	return metricMatcher(metricWant{Name: name, Value: want, Op: ">="}, func(got int64) bool { return got >= want })
}

func metricMatcher(w metricWant, ok func(int64) bool) types.GomegaMatcher {
	return gcustom.MakeMatcher(func(m NodeMetrics) (bool, error) {
		return ok(m.Metrics[w.Name]), nil
	}).WithPrecompiledTemplate(newTemplate(`Expected {{.Actual.NodeType}} {{.Actual.ID}} ({{.Actual.Type}}) {{if .Failure}}{{else}}not {{end}}to have {{.Data.Name}} {{.Data.Op}} {{.Data.Value}}, found {{index .Actual.Metrics .Data.Name}}; its counters:
    {{counters .Actual}}`, template.FuncMap{"counters": func(m NodeMetrics) string { return counters(m, "\n    ") }}), w)
}
