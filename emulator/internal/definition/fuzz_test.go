package definition

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzCompile compiles arbitrary bytes as eventstream.json against a
// resolver that accepts everything: Compile never panics, refuses only
// with a *Refusal, and a plan it returns renders as a JSON object.
func FuzzCompile(f *testing.F) {
	if raw, err := os.ReadFile(filepath.Join("..", "..", "..", "..", "shared", "fabric-event-streams-template", "eventstream-definition.json")); err == nil {
		f.Add(raw)
	}
	for _, seed := range []string{
		``, `null`, `[]`, `{}`, `"x"`, `{"sources":null}`, `{"sources":{}}`,
		`{"sources":[null],"streams":[1],"operators":["x"],"destinations":[[]]}`,
		topo(srcCE, defSt, `[]`, lakeDst),
		topo(srcCE, `[{"name":"main","type":"DefaultStream"},{"name":"d","type":"DerivedStream","inputNodes":[{"name":"a"}]}]`, opsAB, `[]`),
		`{"streams":[{"name":"s","type":"DerivedStream","inputNodes":[{"name":"s"}]}]}`,
		mf("[" + fc("u", `[{"expressionType":"Literal","dataType":"BigInt","value":"9223372036854775808"}]`) + "]"),
		filterOf(`{"column":{"expressionType":"ColumnReference"},"operatorType":"Equals","value":{"value":1e400}}`),
		opTopo("GroupBy", `{"aggregations":[{"aggregateFunction":"Average"}],"window":{"type":"Tumbling","properties":{"duration":-1}}}`),
		strings.Repeat(`{"sources":[`, 300) + strings.Repeat("]}", 300),
		strings.Repeat("[", 10_000),
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := Compile(t.Context(), Input{Parts: Parts{Topology: data}, WorkspaceID: "ws-1", StreamName: "es-stream"}, newResolver())
		if err != nil {
			var r *Refusal
			if !errors.As(err, &r) || r.Error() == "" {
				t.Fatalf("refused with %v (%T)", err, err)
			}
			return
		}
		var m map[string]any
		if err := json.Unmarshal(p.Topology.Marshal(), &m); err != nil {
			t.Fatalf("plan renders as %s: %v", p.Topology.Marshal(), err)
		}
	})
}
