package pipeline_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/fabrictest/fabrictest/emulator/pipeline"
	"github.com/fabrictest/fabrictest/emulator/rows"
)

func printRows(rs []rows.Row) {
	for _, r := range rs {
		raw, _ := json.Marshal(r)
		fmt.Println(string(raw))
	}
}

// The seed's Window + GroupBy pair parses to one windowed GroupBy.
func ExampleParse() {
	ops, err := pipeline.Parse([]byte(`[
		{"type": "Filter", "condition": {"field": "temp", "op": "gt", "value": 20}},
		{"type": "Window", "kind": "tumbling", "duration": "1m", "on": "ts"},
		{"type": "GroupBy", "keys": ["_window_start", "site"],
		 "aggregates": [{"fn": "count", "as": "n"}, {"fn": "avg", "field": "temp"}]}]`))
	if err != nil {
		fmt.Println(err)
		return
	}
	canonical, _ := pipeline.Format(ops)
	fmt.Println(string(canonical))
	// Output:
	// [{"type":"Filter","condition":{"field":"temp","op":"gt","value":20}},{"type":"GroupBy","keys":["site"],"aggregates":[{"fn":"count","as":"n"},{"fn":"avg","field":"temp","as":"avg_temp"}],"window":{"kind":"tumbling","duration":"1m0s","on":"ts"}}]
}

// Refusals and validation errors name the field at fault.
func ExampleParse_errors() {
	for _, doc := range []string{
		`[{"type": "SQL", "query": "SELECT * INTO out FROM in"}]`,
		`[{"type": "GroupBy", "aggregates": [{"fn": "count"}], "window": {"kind": "session", "duration": "5m"}}]`,
		`[{"type": "GroupBy", "aggregates": [{"fn": "median", "field": "v"}], "window": {"kind": "tumbling", "duration": "5m"}}]`,
	} {
		_, err := pipeline.Parse([]byte(doc))
		var refused *pipeline.NotSupportedError
		var invalid *pipeline.ValidationError
		switch {
		case errors.As(err, &refused):
			fmt.Println(refused.ErrorCode(), refused.Field, "-", refused.Name)
		case errors.As(err, &invalid):
			fmt.Println(invalid.ErrorCode(), invalid.Field, "-", invalid.Message)
		}
	}
	// Output:
	// EventstreamOperatorNotSupported operators[0].type - SQL
	// InvalidInput operators[0].window.timeout - required: a duration such as "1m"
	// InvalidInput operators[0].aggregates[0].fn - "median" is not one of count, sum, min, max, avg
}

// A Filter → GroupBy pipeline: windows come out once, when they close —
// on event time as records arrive, or on the wall clock with Advance.
func ExamplePipeline() {
	ops, _ := pipeline.Parse([]byte(`[
		{"type": "Filter", "condition": {"field": "temp", "op": "exists"}},
		{"type": "GroupBy", "keys": ["site"], "aggregates": [{"fn": "max", "field": "temp"}],
		 "window": {"kind": "tumbling", "duration": "1m", "on": "ts"}}]`))
	p, _ := pipeline.New(ops)
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	feed := func(offset int64, value string) []rows.Row {
		return p.Process([]pipeline.Event{{Row: rows.FromValue([]byte(value)), Timestamp: now, Offset: offset}})
	}
	feed(0, `{"site": "oslo", "temp": 21, "ts": "2026-01-01T00:00:10Z"}`)
	feed(1, `{"site": "oslo", "temp": 23.5, "ts": "2026-01-01T00:00:40Z"}`)
	feed(2, `{"site": "oslo", "ts": "2026-01-01T00:00:50Z"}`)
	printRows(feed(3, `{"site": "rome", "temp": 30, "ts": "2026-01-01T00:01:05Z"}`))
	deadline, _ := p.Deadline()
	printRows(p.Advance(deadline))
	fmt.Printf("%+v\n", p.Stats())
	// Output:
	// {"_window_start":"2026-01-01T00:00:00Z","max_temp":23.5,"site":"oslo","window_end":"2026-01-01T00:01:00Z","window_start":"2026-01-01T00:00:00Z"}
	// {"_window_start":"2026-01-01T00:01:00Z","max_temp":30,"site":"rome","window_end":"2026-01-01T00:02:00Z","window_start":"2026-01-01T00:01:00Z"}
	// {Events:4 Replayed:0 Filtered:1 CastFailures:0 FunctionFailures:0 NonNumeric:0 MissingTime:0 Late:0 WindowsEmitted:2 Rows:2 GroupsOverLimit:0}
}

// A restart in the middle of an open window: snapshot, restore into a new
// pipeline, resume at its offsets.
func ExamplePipeline_Restore() {
	ops, _ := pipeline.Parse([]byte(`{"type": "GroupBy", "aggregates": [{"fn": "sum", "field": "v", "as": "total"}],
		"kind": "tumbling", "duration": "1m", "on": "ts"}`))
	ev := func(offset int64, v int, ts string) pipeline.Event {
		return pipeline.Event{Row: rows.FromValue(fmt.Appendf(nil, `{"v": %d, "ts": %q}`, v, ts)), Offset: offset}
	}
	before, _ := pipeline.New(ops)
	before.Process([]pipeline.Event{ev(0, 1, "2026-01-01T00:00:10Z"), ev(1, 2, "2026-01-01T00:00:20Z")})
	snap, _ := before.Snapshot()

	after, _ := pipeline.New(ops)
	if err := after.Restore(snap); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("resume at", after.Offsets())
	// Offset 1 is read again by a consumer resuming at its last commit: skipped.
	printRows(after.Process([]pipeline.Event{ev(1, 2, "2026-01-01T00:00:20Z"), ev(2, 4, "2026-01-01T00:01:30Z")}))
	fmt.Println("replayed:", after.Stats().Replayed)
	// Output:
	// resume at map[0:2]
	// {"_window_start":"2026-01-01T00:00:00Z","total":3,"window_end":"2026-01-01T00:01:00Z","window_start":"2026-01-01T00:00:00Z"}
	// replayed: 1
}
