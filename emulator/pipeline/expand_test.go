package pipeline

import (
	"strings"
	"testing"

	"github.com/fabrictest/fabrictest/emulator/rows"
)

// Expand follows Azure Stream Analytics' CROSS APPLY GetArrayElements /
// OUTER APPLY (learn.microsoft.com/stream-analytics-query/getarrayelements-azure-stream-analytics)
// and Fabric's Expand operator (learn.microsoft.com/fabric/real-time-intelligence/event-streams/process-events-using-event-processor-editor).
func TestExpand(t *testing.T) {
	in := events(
		`{"id":1,"tags":["a","b"],"x":{"v":[1,2]}}`,
		`{"id":2,"tags":[]}`,
		`{"id":3}`,
		`{"id":4,"tags":"solo"}`,
		`{"id":5,"tags":null}`,
	)
	cases := []struct {
		doc  string
		want []string
	}{
		{`{"type":"Expand","field":"tags"}`, []string{
			`{"id":1,"tags":"a","x":{"v":[1,2]}}`, `{"id":1,"tags":"b","x":{"v":[1,2]}}`,
			`{"id":4,"tags":"solo"}`}},
		{`{"type":"Expand","fields":["tags"],"ignoreMissingOrEmpty":false}`, []string{
			`{"id":1,"tags":"a","x":{"v":[1,2]}}`, `{"id":1,"tags":"b","x":{"v":[1,2]}}`,
			`{"id":2,"tags":null}`, `{"id":3,"tags":null}`, `{"id":4,"tags":"solo"}`, `{"id":5,"tags":null}`}},
		{`{"type":"Expand","fields":["tags","x.v"]}`, []string{
			`{"id":1,"tags":"a","x":{"v":1}}`, `{"id":1,"tags":"a","x":{"v":2}}`,
			`{"id":1,"tags":"b","x":{"v":1}}`, `{"id":1,"tags":"b","x":{"v":2}}`}},
	}
	for _, c := range cases {
		p := mustPipeline(t, c.doc)
		got := texts(p.Process(in))
		if !equalTexts(got, c.want) {
			t.Errorf("%s:\n got %v\nwant %v", c.doc, got, c.want)
		}
	}
	// The input rows are not changed.
	if got := texts([]rows.Row{in[0].Row}); got[0] != `{"id":1,"tags":["a","b"],"x":{"v":[1,2]}}` {
		t.Errorf("input changed: %s", got[0])
	}
}

func TestExpandThenGroupByCountsElements(t *testing.T) {
	p := mustPipeline(t, `[{"type":"Expand","field":"items"},
		{"type":"GroupBy","keys":["items"],"aggregates":[{"fn":"count","as":"n"}],
		 "window":{"kind":"tumbling","duration":"1m"}}]`)
	out := p.Process(events(`{"items":["a","b","a"]}`, `{"items":["b"]}`))
	out = append(out, p.Advance(t0.Add(2*60e9))...)
	want := []string{
		`{"_window_start":"2026-01-01T00:00:00Z","items":"a","n":2,"window_end":"2026-01-01T00:01:00Z","window_start":"2026-01-01T00:00:00Z"}`,
		`{"_window_start":"2026-01-01T00:00:00Z","items":"b","n":2,"window_end":"2026-01-01T00:01:00Z","window_start":"2026-01-01T00:00:00Z"}`,
	}
	if got := texts(out); !equalTexts(got, want) {
		t.Errorf("got %v\nwant %v", got, want)
	}
}

func TestExpandBadSpecs(t *testing.T) {
	for doc, field := range map[string]string{
		`[{"type":"Expand"}]`:                                      "operators[0].fields",
		`[{"type":"Expand","fields":["a","a"]}]`:                   "operators[0].fields[1]",
		`[{"type":"Expand","field":"a","fields":["b"]}]`:           "operators[0].field",
		`[{"type":"Expand","field":"a","ignoreMissingOrEmpty":1}]`: "operators[0].ignoreMissingOrEmpty",
	} {
		_, err := Parse([]byte(doc))
		if err == nil || !strings.Contains(err.Error(), field) {
			t.Errorf("%s: got %v, want an error naming %s", doc, err, field)
		}
	}
}
