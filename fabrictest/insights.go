package fabrictest

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/fabrictest/fabrictest/emulator/wire"
)

// Data insights (fabric-docs, "Monitor the status and performance of an
// eventstream"): each source, stream and destination node's metrics under
// Fabric's names, and its runtime logs.

// Fabric's data-insights metric names, as HaveMetric takes them.
const (
	MetricInputEvents           = "InputEvents"
	MetricInputEventBytes       = "InputEventBytes"
	MetricOutputEvents          = "OutputEvents"
	MetricOutputEventBytes      = "OutputEventBytes"
	MetricBackloggedInputEvents = "BackloggedInputEvents"
	MetricRuntimeErrors         = "RuntimeErrors"
	MetricDataConversionErrors  = "DataConversionErrors"
	MetricDeserializationErrors = "DeserializationErrors"
	MetricWatermarkDelaySeconds = "WatermarkDelaySeconds"
	MetricIncomingMessages      = "IncomingMessages"
	MetricIncomingBytes         = "IncomingBytes"
	MetricOutgoingMessages      = "OutgoingMessages"
	MetricOutgoingBytes         = "OutgoingBytes"
)

// NodeMetrics is one node's data insights: its id, name, type, kind
// (Source, Stream or Destination) and counters by Fabric's metric name.
type NodeMetrics = wire.NodeMetrics

// EventstreamMetrics is every source, stream and destination node of an
// Eventstream with its metrics; Node finds one by id.
type EventstreamMetrics = wire.EventstreamMetrics

// counters lists name=value of every counter of m, names sorted.
func counters(m NodeMetrics, sep string) string {
	names := make([]string, 0, len(m.Metrics))
	for k := range m.Metrics {
		names = append(names, k)
	}
	slices.Sort(names)
	parts := make([]string, len(names))
	for i, k := range names {
		parts[i] = fmt.Sprintf("%s=%d", k, m.Metrics[k])
	}
	return strings.Join(parts, sep)
}

// Metrics returns the destination's data insights and fails the test
// unless the emulator answers 2xx.
//
//	Eventually(dest.TryMetrics).Should(fabrictest.HaveMetric("OutputEvents", 3))
func (d Destination) Metrics() NodeMetrics {
	d.es.env.t.Helper()
	m, err := d.TryMetrics()
	if err != nil {
		d.es.env.t.Fatalf("fabrictest: metrics of destination %s: %v", d.ID, err)
	}
	return m
}

// TryMetrics is Metrics that returns the error instead of failing the test.
func (d Destination) TryMetrics() (NodeMetrics, error) {
	var m NodeMetrics
	if d.es.env == nil {
		return m, fmt.Errorf("destination handle has no eventstream: get it from a Bind… call or Destinations")
	}
	_, err := d.es.env.do(http.MethodGet, d.path()+"/metrics", nil, nil, 0, &m)
	return m, err
}

// Metrics returns every node of the Eventstream with its data insights and
// fails the test unless the emulator answers 2xx.
func (es Eventstream) Metrics() EventstreamMetrics {
	es.env.t.Helper()
	m, err := es.TryMetrics()
	if err != nil {
		es.env.t.Fatalf("fabrictest: metrics of eventstream %s: %v", es.ID, err)
	}
	return m
}

// TryMetrics is Metrics that returns the error instead of failing the test.
func (es Eventstream) TryMetrics() (EventstreamMetrics, error) {
	var m EventstreamMetrics
	_, err := es.env.do(http.MethodGet, es.itemPath()+"/metrics", nil, nil, 0, &m)
	return m, err
}

// StreamMetrics returns the DefaultStream's data insights and fails the
// test unless the emulator answers 2xx.
func (es Eventstream) StreamMetrics() NodeMetrics {
	es.env.t.Helper()
	m, err := es.TryStreamMetrics()
	if err != nil {
		es.env.t.Fatalf("fabrictest: metrics of the stream of eventstream %s: %v", es.ID, err)
	}
	return m
}

// TryStreamMetrics is StreamMetrics that returns the error instead of
// failing the test.
func (es Eventstream) TryStreamMetrics() (NodeMetrics, error) {
	var m NodeMetrics
	_, err := es.env.do(http.MethodGet, es.itemPath()+"/streams/"+url.PathEscape(es.DatasourceID)+"/metrics", nil, nil, 0, &m)
	return m, err
}

// LogEntry is one runtime log line of a node.
type LogEntry = wire.LogEntry

// LogOption filters runtime logs.
type LogOption func(url.Values)

// LogLevel keeps the entries of the given levels (Information, Warning,
// Error).
func LogLevel(levels ...string) LogOption {
	return func(q url.Values) { q["level"] = append(q["level"], levels...) }
}

// LogKeyword keeps the entries whose message or attributes contain kw,
// ignoring case.
func LogKeyword(kw string) LogOption { return func(q url.Values) { q.Set("keyword", kw) } }

// RuntimeLogs returns the destination's runtime logs, newest first, and
// fails the test unless the emulator answers 2xx.
func (d Destination) RuntimeLogs(opts ...LogOption) []LogEntry {
	d.es.env.t.Helper()
	l, err := d.TryRuntimeLogs(opts...)
	if err != nil {
		d.es.env.t.Fatalf("fabrictest: runtime logs of destination %s: %v", d.ID, err)
	}
	return l
}

// TryRuntimeLogs is RuntimeLogs that returns the error instead of failing
// the test.
func (d Destination) TryRuntimeLogs(opts ...LogOption) ([]LogEntry, error) {
	if d.es.env == nil {
		return nil, fmt.Errorf("destination handle has no eventstream: get it from a Bind… call or Destinations")
	}
	return readLogs(d.es.env, d.path()+"/logs", opts)
}

// RuntimeLogs returns the runtime logs of every node of the Eventstream,
// newest first, and fails the test unless the emulator answers 2xx.
func (es Eventstream) RuntimeLogs(opts ...LogOption) []LogEntry {
	es.env.t.Helper()
	l, err := es.TryRuntimeLogs(opts...)
	if err != nil {
		es.env.t.Fatalf("fabrictest: runtime logs of eventstream %s: %v", es.ID, err)
	}
	return l
}

// TryRuntimeLogs is RuntimeLogs that returns the error instead of failing
// the test.
func (es Eventstream) TryRuntimeLogs(opts ...LogOption) ([]LogEntry, error) {
	return readLogs(es.env, es.itemPath()+"/logs", opts)
}

func readLogs(e *Env, path string, opts []LogOption) ([]LogEntry, error) {
	q := url.Values{}
	for _, o := range opts {
		o(q)
	}
	var out wire.List[LogEntry]
	_, err := e.do(http.MethodGet, path, q, nil, 0, &out)
	return out.Value, err
}
