package asaql_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/fabrictest/fabrictest/emulator/internal/asaql"
	"github.com/fabrictest/fabrictest/emulator/pipeline"
	"github.com/fabrictest/fabrictest/emulator/rows"
)

// build compiles query and builds its pipeline.
func build(t *testing.T, query string) (*asaql.Plan, *pipeline.Pipeline) {
	t.Helper()
	plan, err := asaql.Compile(query, "sql")
	if err != nil {
		t.Fatalf("compile %q: %v", query, err)
	}
	raw, _ := json.Marshal(plan.Specs)
	ops, err := pipeline.Parse(raw)
	if err != nil {
		t.Fatalf("parse specs %s: %v", raw, err)
	}
	p, err := pipeline.New(ops)
	if err != nil {
		t.Fatalf("new pipeline: %v", err)
	}
	return plan, p
}

var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// feed runs the events (JSON values, offsets from first, arrival t0+sec[i]).
func feed(p *pipeline.Pipeline, first int64, secs []int, values ...string) []string {
	var evs []pipeline.Event
	for i, v := range values {
		evs = append(evs, pipeline.Event{Row: rows.FromValue([]byte(v)), Timestamp: t0.Add(time.Duration(secs[i]) * time.Second), Offset: first + int64(i)})
	}
	return encode(p.Process(evs))
}

func encode(rs []rows.Row) []string {
	var out []string
	for _, r := range rs {
		b, _ := json.Marshal(r)
		out = append(out, string(b))
	}
	return out
}

func same(t *testing.T, got, want []string) {
	t.Helper()
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("rows:\n got %s\nwant %s", strings.Join(got, "\n     "), strings.Join(want, "\n     "))
	}
}

// Fabric's GetEventstreamTopology example SQL node: SELECT * INTO [MyStream]
// FROM [MyNode] passes every event through.
func TestSelectStarPassesThrough(t *testing.T) {
	plan, err := asaql.Compile("SELECT * INTO [MyStream] FROM [MyNode]", "sql")
	if err != nil || plan.From != "MyNode" || plan.Into != "MyStream" || len(plan.Specs) != 0 {
		t.Fatalf("plan = %+v, %v", plan, err)
	}
}

// SELECT with columns, aliases, CAST, a scalar function and WHERE, after
// the Stream Analytics query language reference (SELECT, WHERE, CAST,
// string functions).
func TestSelectWhereProjects(t *testing.T) {
	_, p := build(t, `SELECT deviceId AS device, CAST(temp AS bigint) AS t, Upper(site) AS SITE, pos.lat
		INTO [out] FROM [in]
		WHERE (temp > 20 AND NOT site LIKE 'x%') OR 'hot' = state`)
	got := feed(p, 0, []int{0, 1, 2, 3},
		`{"deviceId":"a","temp":21.7,"site":"oslo","pos":{"lat":59},"extra":1}`,
		`{"deviceId":"b","temp":25,"site":"xanadu","pos":{"lat":1}}`,
		`{"deviceId":"c","temp":10,"site":"rome","state":"hot"}`,
		`{"deviceId":"d","temp":10,"site":"rome","state":"cold"}`)
	same(t, got, []string{
		`{"SITE":"OSLO","device":"a","lat":59,"t":21}`,
		`{"SITE":"ROME","device":"c","t":10}`,
	})
}

// GROUP BY with TumblingWindow, COUNT(*), AVG and System.Timestamp(), with
// a restart in the middle of an open window (Stream Analytics'
// TumblingWindow reference: windows [0,10s), [10s,20s)).
func TestGroupByTumblingRestart(t *testing.T) {
	q := `SELECT site, COUNT(*) AS n, AVG(temp) AS avgTemp, System.Timestamp() AS windowEnd
		INTO out FROM input GROUP BY site, TumblingWindow(second, 10)`
	_, p := build(t, q)
	same(t, feed(p, 0, []int{1, 2, 3}, `{"site":"a","temp":1}`, `{"site":"a","temp":3}`, `{"site":"b","temp":5}`), nil)
	snap, err := p.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	_, after := build(t, q)
	if err := after.Restore(snap); err != nil {
		t.Fatal(err)
	}
	got := feed(after, 3, []int{12}, `{"site":"a","temp":100}`)
	same(t, got, []string{
		`{"avgTemp":2.0,"n":2,"site":"a","windowEnd":"2026-01-01T00:00:10Z"}`,
		`{"avgTemp":5.0,"n":1,"site":"b","windowEnd":"2026-01-01T00:00:10Z"}`,
	})
}

// HoppingWindow(second, 10, 5) on the TIMESTAMP BY column.
func TestGroupByHoppingTimestampBy(t *testing.T) {
	_, p := build(t, `SELECT SUM(v) AS total INTO o FROM i TIMESTAMP BY ts GROUP BY HoppingWindow(second, 10, 5)`)
	got := feed(p, 0, []int{0, 0, 0},
		`{"v":1,"ts":"2026-01-01T00:00:01Z"}`, `{"v":2,"ts":"2026-01-01T00:00:06Z"}`, `{"v":4,"ts":"2026-01-01T00:00:21Z"}`)
	same(t, got, []string{`{"total":1}`, `{"total":3}`, `{"total":2}`})
}

// SlidingWindow, SessionWindow and SnapshotWindow (Stream Analytics'
// windowing functions) compile into the pipeline's windows of those kinds,
// which the pipeline accepts; their semantics are tested in package
// pipeline.
func TestGroupByOtherWindows(t *testing.T) {
	for q, want := range map[string]string{
		"SELECT COUNT(*) AS n INTO o FROM a GROUP BY SlidingWindow(second, 5)":     `{"duration":"5s","kind":"sliding"}`,
		"SELECT COUNT(*) AS n INTO o FROM a GROUP BY SessionWindow(minute, 2, 10)": `{"kind":"session","maxDuration":"10m","timeout":"2m"}`,
		"SELECT COUNT(*) AS n INTO o FROM a GROUP BY SnapshotWindow()":             `{"kind":"snapshot"}`,
	} {
		plan, _ := build(t, q)
		w, _ := json.Marshal(plan.Specs[0]["window"])
		if string(w) != want {
			t.Errorf("%s: window %s, want %s", q, w, want)
		}
	}
	for q, msg := range map[string]string{
		"SELECT COUNT(*) AS n INTO o FROM a GROUP BY SnapshotWindow(second, 1)": "takes no arguments",
		"SELECT COUNT(*) AS n INTO o FROM a GROUP BY SlidingWindow(second)":     "takes a time unit and 1 sizes",
		"SELECT COUNT(*) AS n INTO o FROM a GROUP BY SessionWindow(second, 5)":  "takes a time unit and 2 sizes",
	} {
		if _, err := asaql.Compile(q, "sql"); err == nil || !strings.Contains(err.Error(), msg) {
			t.Errorf("%s: %v, want %q", q, err, msg)
		}
	}
}

// Constructs outside the subset are refused by name.
func TestRefusalsNameTheConstruct(t *testing.T) {
	for q, construct := range map[string]string{
		"SELECT * INTO o FROM a JOIN b ON a.x = b.x":                                                 "JOIN",
		"SELECT * INTO o FROM a UNION SELECT * INTO o FROM b":                                        "UNION",
		"WITH s AS (SELECT * FROM a) SELECT * INTO o FROM s":                                         "WITH",
		"SELECT x, COUNT(*) AS n INTO o FROM a GROUP BY x, TumblingWindow(s, 5) HAVING COUNT(*) > 1": "HAVING",
		"SELECT a + 1 AS b INTO o FROM i":                                                            "the arithmetic operator '+'",
		"SELECT CASE WHEN a THEN 1 END AS b INTO o FROM i":                                           "CASE",
		"SELECT * INTO o FROM i; SELECT * INTO p FROM i":                                             "more than one SELECT statement",
		"SELECT * INTO o FROM i CROSS APPLY GetArrayElements(i.a) AS e":                              "CROSS APPLY",
		"SELECT * INTO o FROM i WHERE a = b":                                                         "comparing two columns",
		"SELECT COUNT(*) AS n INTO o FROM i":                                                         "the aggregate COUNT() without GROUP BY",
		"SELECT * INTO o FROM (SELECT * FROM i)":                                                     "a subquery",
	} {
		_, err := asaql.Compile(q, "sql")
		var e *asaql.Error
		if !errors.As(err, &e) || e.Construct != construct {
			t.Errorf("%s: got %v, want construct %q", q, err, construct)
			continue
		}
		if want := construct + " is not supported in the SQL operator"; !strings.HasPrefix(err.Error(), want) {
			t.Errorf("%s: message %q lacks %q", q, err, want)
		}
	}
}

// Syntax errors say where.
func TestSyntaxErrors(t *testing.T) {
	for _, q := range []string{"SELECT", "SELECT * FROM", "SELECT a b INTO o FROM i", "SELECT 'x INTO o FROM i", "SELECT x INTO o FROM i GROUP BY TumblingWindow(parsec, 1)"} {
		_, err := asaql.Compile(q, "sql")
		var e *asaql.Error
		if !errors.As(err, &e) || e.Unsupported() {
			t.Errorf("%q: got %v, want a syntax error", q, err)
		}
	}
}
