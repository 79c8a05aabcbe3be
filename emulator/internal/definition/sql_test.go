package definition

import (
	"strconv"
	"strings"
	"testing"
)

// sqlTopo is a topology whose SQL node "q" reads the DefaultStream "main"
// and feeds Lakehouse "lake".
func sqlTopo(query string) string {
	return topo(srcCE, defSt, `[{"name":"q","type":"sql","properties":{"query":`+strconv.Quote(query)+`,"advancedSettings":{"eventsOutOfOrderPolicy":"Adjust"}},"inputNodes":[{"name":"main"}]}]`,
		`[{"name":"lake","type":"Lakehouse","properties":{"itemId":"`+lakeID+`","deltaTable":"t1"},"inputNodes":[{"name":"q"}]}]`)
}

// TestSQLNode: a SQL node (fabric-rest-api-specs eventstream operator.json
// SqlOperator, {query, advancedSettings}) compiles into the pipeline chain
// its query says.
func TestSQLNode(t *testing.T) {
	p := mustCompile(t, newResolver(), sqlTopo("SELECT a AS b, COUNT(*) AS n, System.Timestamp() AS t INTO [lake] FROM [main] WHERE a > 1 GROUP BY a, TumblingWindow(minute, 5)"))
	got := string(p.Operators)
	for _, want := range []string{`"type":"Filter"`, `"type":"GroupBy"`, `"type":"ManageFields"`, `"duration":"5m0s"`, `"rename":{"a":"b","window_end":"t"}`} {
		if !strings.Contains(got, want) {
			t.Fatalf("operators %s lack %s", got, want)
		}
	}
	if p.Topology.ByName["q"].Raw["type"] != "SQL" {
		t.Fatalf("type stored as %v", p.Topology.ByName["q"].Raw["type"])
	}
	// Fabric's GetEventstreamTopology example query passes events through.
	p = mustCompile(t, newResolver(), sqlTopo("SELECT * INTO [lake] FROM [main]"))
	if p.Operators != nil {
		t.Fatalf("SELECT * compiled into %s", p.Operators)
	}
}

// TestSQLRefusals: constructs outside the subset are refused by name, and
// FROM and INTO must name the node's input and a reader of the node.
func TestSQLRefusals(t *testing.T) {
	const at = "eventstream.json operators[0].properties.query"
	cases := []struct {
		name, query string
		kind        Kind
		field, msg  string
	}{
		{"no query", "", BadInput, at, "required"},
		{"JOIN", "SELECT * INTO lake FROM main JOIN other ON main.a = other.a", NotSupported, "operators[0].properties.query", "JOIN is not supported in the SQL operator"},
		{"APPLY", "SELECT * INTO lake FROM main CROSS APPLY GetArrayElements(main.xs) AS e", NotSupported, "operators[0].properties.query", "is not supported in the SQL operator"},
		{"syntax", "SELECT FROM main", BadInput, at, "query at offset 7"},
		{"FROM elsewhere", "SELECT * INTO lake FROM other", BadInput, at, `FROM [other] is not the node's input "main"`},
		{"INTO elsewhere", "SELECT * INTO nowhere FROM main", BadInput, at, `INTO [nowhere] is not a node that reads "q"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := compile(t, newResolver(), sqlTopo(c.query))
			refusal(t, err, c.kind, c.field, c.msg)
		})
	}
}
