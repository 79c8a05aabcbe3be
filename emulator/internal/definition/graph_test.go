package definition

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/fabrictest/fabrictest/emulator/pipeline"
)

// graphOps: two Filters on the DefaultStream, a Union of both, a Join of
// the first with the DefaultStream (its joinOn naming main as the left
// node), an Expand after the Union and a DerivedStream between.
const graphOps = `[
 {"name":"hot","type":"Filter","properties":{"conditions":[{"column":"t","operatorType":"GreaterThan","value":{"dataType":"BigInt","value":"20"}}]},"inputNodes":[{"name":"main"}]},
 {"name":"cold","type":"Filter","properties":{"conditions":[{"column":"t","operatorType":"LessThan","value":{"dataType":"BigInt","value":"0"}}]},"inputNodes":[{"name":"main"}]},
 {"name":"both","type":"Union","properties":{},"inputNodes":[{"name":"hot"},{"name":"cold"}]},
 {"name":"tags","type":"Expand","properties":{"column":{"columnName":"tags"}},"inputNodes":[{"name":"mid"}]},
 {"name":"pair","type":"Join","properties":{"joinType":"LeftOuter","duration":{"value":1,"unit":"Minute"},
   "joinOn":[{"left":{"node":"main","columnName":"id"},"right":{"node":"hot","columnName":"id"}}]},"inputNodes":[{"name":"hot"},{"name":"main"}]}]`

// TestOperatorGraph: Union and Join nodes take the chain before each of
// their inputs; a Join's left input is the node its joinOn names left.
func TestOperatorGraph(t *testing.T) {
	streams := `[{"name":"main","type":"DefaultStream","inputNodes":[{"name":"src"}]},{"name":"mid","type":"DerivedStream","inputNodes":[{"name":"both"}]}]`
	dests := `[{"name":"l1","type":"Lakehouse","properties":{"itemId":"` + lakeID + `","deltaTable":"t1"},"inputNodes":[{"name":"tags"}]},
		{"name":"l2","type":"Lakehouse","properties":{"itemId":"` + lakeID + `","deltaTable":"t2"},"inputNodes":[{"name":"pair"}]}]`
	p := mustCompile(t, newResolver(), topo(srcCE, streams, graphOps, dests))
	if !p.OwnOperators || len(p.Destinations) != 2 {
		t.Fatalf("own %v, destinations %d", p.OwnOperators, len(p.Destinations))
	}
	var union, join []pipeline.Spec
	if err := json.Unmarshal(p.Destinations[0].Operators, &union); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(p.Destinations[1].Operators, &join); err != nil {
		t.Fatal(err)
	}
	if len(union) != 2 || union[0].Type != "Union" || union[1].Type != "Expand" || len(union[0].Inputs) != 2 ||
		union[0].Inputs[0][0].Name != "hot" || union[0].Inputs[1][0].Name != "cold" {
		t.Errorf("union chain %s", p.Destinations[0].Operators)
	}
	if len(join) != 1 || join[0].Type != "Join" || join[0].JoinType != "leftouter" || join[0].Duration != "1m0s" ||
		len(join[0].Inputs) != 2 || len(join[0].Inputs[0]) != 0 || join[0].Inputs[1][0].Name != "hot" ||
		len(join[0].JoinOn) != 1 || join[0].JoinOn[0] != (pipeline.JoinOnSpec{Left: "id", Right: "id"}) {
		t.Errorf("join chain %s", p.Destinations[1].Operators)
	}
	if len(p.Derived) != 1 || !strings.Contains(string(p.Derived[0].Operators), `"Union"`) {
		t.Errorf("derived %+v", p.Derived)
	}
	// Every chain runs.
	for _, d := range p.Destinations {
		ops, err := pipeline.Parse(d.Operators)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := pipeline.New(ops); err != nil {
			t.Fatal(err)
		}
	}
}

// TestOperatorGraphCycle: a cycle through a Union is refused at the
// destination that reads it.
func TestOperatorGraphCycle(t *testing.T) {
	ops := `[{"name":"u","type":"Union","properties":{},"inputNodes":[{"name":"main"},{"name":"f"}]},
		{"name":"f","type":"Filter","properties":{"conditions":[{"column":"a","operatorType":"Equals","value":1}]},"inputNodes":[{"name":"u"}]}]`
	_, err := compile(t, newResolver(), topo(srcCE, defSt, ops, `[{"name":"lake","type":"Lakehouse","properties":{"itemId":"`+lakeID+`","deltaTable":"t1"},"inputNodes":[{"name":"f"}]}]`))
	refusal(t, err, BadInput, "eventstream.json destinations[0].inputNodes", "its inputs form a cycle")
}

// TestOperatorGraphExpansionBounded: Unions of Unions repeat the chains
// before them; a graph that would expand past maxExpansion steps is
// refused instead of built.
func TestOperatorGraphExpansionBounded(t *testing.T) {
	ops := []string{`{"name":"u0","type":"Union","properties":{},"inputNodes":[{"name":"main"},{"name":"main"}]}`}
	for i := 1; i < 16; i++ {
		ops = append(ops, fmt.Sprintf(`{"name":"u%d","type":"Union","properties":{},"inputNodes":[{"name":"u%d"},{"name":"u%d"}]}`, i, i-1, i-1))
	}
	dest := `[{"name":"lake","type":"Lakehouse","properties":{"itemId":"` + lakeID + `","deltaTable":"t1"},"inputNodes":[{"name":"u15"}]}]`
	_, err := compile(t, newResolver(), topo(srcCE, defSt, "["+strings.Join(ops, ",")+"]", dest))
	refusal(t, err, BadInput, "eventstream.json destinations[0].inputNodes", "expand to more than 10000 steps")
	// Four levels (30 steps) are built.
	dest = strings.Replace(dest, "u15", "u3", 1)
	mustCompile(t, newResolver(), topo(srcCE, defSt, "["+strings.Join(ops, ",")+"]", dest))
}
