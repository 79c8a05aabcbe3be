package definition

import (
	"encoding/json"
	"errors"
	"testing"
)

// opTopo is a topology with one operator f of type typ reading the
// DefaultStream.
func opTopo(typ, props string) string {
	return topo(srcCE, defSt, `[{"name":"f","type":"`+typ+`","properties":`+props+`,"inputNodes":[{"name":"main"}]}]`, `[]`)
}

// mf is a topology with one ManageFields operator of columns.
func mf(columns string) string { return opTopo("ManageFields", `{"columns":`+columns+`}`) }

// fc is a ManageFields column computing FunctionCall upper(args) as alias.
func fc(alias, args string) string {
	return `{"type":"FunctionCall","alias":"` + alias + `","properties":{"functionName":"Upper","arguments":` + args + `}}`
}

// joinTopo is a topology with one Join of props reading the DefaultStream
// twice.
func joinTopo(props string) string {
	return topo(srcCE, defSt, `[{"name":"f","type":"Join","properties":`+props+`,"inputNodes":[{"name":"main"},{"name":"main"}]}]`, `[]`)
}

func filterOf(cond string) string { return opTopo("Filter", `{"conditions":[`+cond+`]}`) }

const (
	lake2  = `{"name":"lake","type":"Lakehouse","properties":{"itemId":"` + lakeID + `","deltaTable":"t1"},"inputNodes":[{"name":"main"}]}`
	filter = `[{"name":"f","type":"Filter","properties":{"conditions":[{"column":"a","operatorType":"Equals","value":1}]},"inputNodes":[{"name":"main"}]}]`
	opsAB  = `[{"name":"a","type":"Filter","properties":{"conditions":[{"column":"a","operatorType":"Equals","value":1}]},"inputNodes":[{"name":"b"}]},` +
		`{"name":"b","type":"Filter","properties":{"conditions":[{"column":"a","operatorType":"Equals","value":1}]},"inputNodes":[{"name":"a"}]}]`
)

// TestRefusals: every refusal of a definition, with its kind, the field at
// fault and its message.
func TestRefusals(t *testing.T) {
	const es = "eventstream.json "
	cases := []struct {
		name, topo string
		kind       Kind
		field, msg string
	}{
		// eventstream.json's shape.
		{"sources not an array", `{"sources":{}}`, BadInput, es + "sources", "want an array"},
		{"node not an object", `{"streams":[1]}`, BadInput, es + "streams[0]", "want a node object"},
		{"no name", `{"sources":[{"type":"CustomEndpoint"}]}`, BadInput, es + "sources[0].name", "required"},
		{"blank name", `{"sources":[{"name":"  ","type":"CustomEndpoint"}]}`, BadInput, es + "sources[0].name", "required"},
		{"no type", `{"sources":[{"name":"s"}]}`, BadInput, es + "sources[0].type", `required (node "s")`},
		{"type not a string", `{"sources":[{"name":"s","type":7}]}`, BadInput, es + "sources[0].type", `required (node "s")`},
		{"duplicate names", topo(srcCE, `[{"name":"src","type":"DefaultStream"}]`, `[]`, `[]`), BadInput, es + "streams[0].name", `"src" is also the name of sources[0]; node names are unique`},
		{"properties not an object", `{"sources":[{"name":"s","type":"CustomEndpoint","properties":[]}]}`, BadInput, es + "sources[0].properties", `want an object (node "s")`},
		{"inputNodes not an array", `{"streams":[{"name":"s","type":"DefaultStream","inputNodes":"src"}]}`, BadInput, es + "streams[0].inputNodes", "want an array of {name}"},
		{"inputNodes without a name", `{"streams":[{"name":"s","type":"DefaultStream","inputNodes":[{}]}]}`, BadInput, es + "streams[0].inputNodes[0].name", `required (node "s")`},
		// Sources.
		{"source not run", topo(`[{"name":"hub","type":"AzureEventHub"}]`, `[]`, `[]`, `[]`), NotSupported, "sources[0].type", "which this emulator cannot run: it reads from a service the emulator has no connection to"},
		{"source with inputs", topo(`[{"name":"src","type":"CustomEndpoint","inputNodes":[{"name":"x"}]}]`, `[]`, `[]`, `[]`), BadInput, es + "sources[0].inputNodes", `source "src": a source has no inputs`},
		// Streams.
		{"two DefaultStreams", topo(srcCE, `[{"name":"main","type":"DefaultStream"},{"name":"m2","type":"DefaultStream"}]`, `[]`, `[]`), BadInput, es + "streams[1].type", `"main" is already the DefaultStream; an Eventstream has one`},
		{"DefaultStream reads a non-source", topo(srcCE, `[{"name":"main","type":"DefaultStream","inputNodes":[{"name":"ghost"}]}]`, `[]`, `[]`), BadInput, es + "streams[0].inputNodes", `"ghost" is not a source of this definition`},
		{"DerivedStream without input", topo(srcCE, `[{"name":"main","type":"DefaultStream"},{"name":"d","type":"DerivedStream"}]`, `[]`, `[]`), BadInput, es + "streams[1].inputNodes", "a DerivedStream reads exactly one operator or stream"},
		{"DerivedStream reads a source", topo(srcCE, `[{"name":"main","type":"DefaultStream"},{"name":"d","type":"DerivedStream","inputNodes":[{"name":"src"}]}]`, `[]`, `[]`), BadInput, es + "streams[1].inputNodes", `"src" is a source; sources feed the DefaultStream "main"`},
		{"DerivedStream reads nothing known", topo(srcCE, `[{"name":"main","type":"DefaultStream"},{"name":"d","type":"DerivedStream","inputNodes":[{"name":"ghost"}]}]`, `[]`, `[]`), BadInput, es + "streams[1].inputNodes", `"ghost" is not a node of this definition`},
		{"unknown stream type", topo(srcCE, `[{"name":"main","type":"Weird"}]`, `[]`, `[]`), BadInput, es + "streams[0].type", `"Weird" is not DefaultStream or DerivedStream`},
		{"node named as the added stream", topo(`[{"name":"es-stream","type":"CustomEndpoint"}]`, `[]`, `[]`, `[]`), BadInput, es + "sources[0].name", "the definition has no DefaultStream, and this node has the name the emulator gives it"},
		// Operators.
		{"Join with one input", opTopo("Join", `{"joinType":"Inner","duration":{"value":1,"unit":"Minute"}}`), BadInput, es + "operators[0].inputNodes", "a Join reads two streams or operators: the left one, then the right one"},
		{"Join without joinType", joinTopo(`{"duration":{"value":1,"unit":"Minute"}}`), BadInput, es + "operators[0].properties.joinType", "required: Inner or LeftOuter"},
		{"Join without duration", joinTopo(`{"joinType":"Inner"}`), BadInput, es + "operators[0].properties.duration", "required: {value, unit}"},
		{"Join of another kind", joinTopo(`{"joinType":"FullOuter","duration":{"value":1,"unit":"Minute"}}`), BadInput, es + "operators[0]", "is not Inner or LeftOuter"},
		{"Join column not a reference", joinTopo(`{"joinType":"Inner","duration":{"value":1,"unit":"Minute"},"joinOn":[{"left":5,"right":"a"}]}`), BadInput, es + "operators[0].properties.joinOn[0].left", "want a column reference {columnName}"},
		{"Union with one input", opTopo("union", `{}`), BadInput, es + "operators[0].inputNodes", "a Union reads two or more streams or operators"},
		{"Expand without a column", opTopo("Expand", `{}`), BadInput, es + "operators[0].properties.column", "want a column reference or a non-empty array of them"},
		{"Expand ignoreMissingOrEmpty not a boolean", opTopo("Expand", `{"column":"a","ignoreMissingOrEmpty":"yes"}`), BadInput, es + "operators[0].properties.ignoreMissingOrEmpty", "want true or false"},
		{"unknown operator", opTopo("Pivot", `{}`), BadInput, es + "operators[0].type", `"Pivot" is not one of Filter, ManageFields, Aggregate, GroupBy, Join, Union, Expand, SQL`},
		{"operator without input", topo(srcCE, defSt, `[{"name":"f","type":"Filter","properties":{"conditions":[{"column":"a","operatorType":"Equals"}]}}]`, `[]`), BadInput, es + "operators[0].inputNodes", "an operator reads exactly one stream or operator"},
		{"operator reads a source", topo(srcCE, defSt, `[{"name":"f","type":"Filter","properties":{"conditions":[{"column":"a","operatorType":"Equals"}]},"inputNodes":[{"name":"src"}]}]`, `[]`), BadInput, es + "operators[0].inputNodes", `"src" is a source; sources feed the DefaultStream "main"`},
		{"operator reads nothing known", topo(srcCE, defSt, `[{"name":"f","type":"Filter","properties":{"conditions":[{"column":"a","operatorType":"Equals"}]},"inputNodes":[{"name":"ghost"}]}]`, `[]`), BadInput, es + "operators[0].inputNodes", `"ghost" is not a node of this definition`},
		// Filter fields.
		{"no conditions", opTopo("Filter", `{}`), BadInput, es + "operators[0].properties.conditions", "want a non-empty array of {column, operatorType, value}"},
		{"condition not an object", filterOf(`1`), BadInput, es + "operators[0].properties.conditions[0]", "want {column, operatorType, value}"},
		{"column not a reference", filterOf(`{"column":5,"operatorType":"Equals"}`), BadInput, es + "operators[0].properties.conditions[0].column", "want a column reference {columnName}"},
		{"column without a name", filterOf(`{"column":{},"operatorType":"Equals"}`), BadInput, es + "operators[0].properties.conditions[0].column.columnName", "required"},
		{"no operatorType", filterOf(`{"column":"a"}`), BadInput, es + "operators[0].properties.conditions[0].operatorType", "required"},
		{"compare with a column", filterOf(`{"column":"a","operatorType":"Equals","value":{"columnName":"b"}}`), BadInput, es + "operators[0].properties.conditions[0].value", "comparing with another column is not built"},
		{"BigInt not a number", filterOf(`{"column":"a","operatorType":"Equals","value":{"dataType":"BigInt","value":"x"}}`), BadInput, es + "operators[0].properties.conditions[0].value.value", `"x" is not a number (dataType BigInt)`},
		{"Bit not a boolean", filterOf(`{"column":"a","operatorType":"Equals","value":{"dataType":"Bit","value":"maybe"}}`), BadInput, es + "operators[0].properties.conditions[0].value.value", `"maybe" is not a boolean (dataType Bit)`},
		{"operator the pipeline refuses", filterOf(`{"column":"a","operatorType":"Bogus","value":1}`), BadInput, es + "operators[0]", `operator "f": `},
		// ManageFields fields.
		{"no columns", mf(`[]`), BadInput, es + "operators[0].properties.columns", "want a non-empty array of {type, alias, properties}"},
		{"column entry not an object", mf(`[1]`), BadInput, es + "operators[0].properties.columns[0]", "want {type, alias, properties}"},
		{"column type unknown", mf(`[{"type":"Drop","properties":{"column":"a"}}]`), BadInput, es + "operators[0].properties.columns[0].type", `"Drop" is not Rename, Cast or FunctionCall`},
		{"Cast without a target", mf(`[{"type":"Cast","properties":{"column":"a"}}]`), BadInput, es + "operators[0].properties.columns[0].properties.targetDataType", "required"},
		{"column renamed twice", mf(`[{"type":"Rename","alias":"b","properties":{"column":"a"}},{"type":"Rename","alias":"c","properties":{"column":"a"}}]`), BadInput, es + "operators[0].properties.columns[1].alias", `column "a" is already output as "b"`},
		{"FunctionCall without a function", mf(`[{"type":"FunctionCall","alias":"u","properties":{"arguments":[]}}]`), BadInput, es + "operators[0].properties.columns[0].properties.functionName", "required"},
		{"FunctionCall without an alias", mf(`[{"type":"FunctionCall","properties":{"functionName":"Upper","arguments":[]}}]`), BadInput, es + "operators[0].properties.columns[0].alias", "required: the name of the column Upper computes"},
		{"arguments not an array", mf("[" + fc("u", `{}`) + "]"), BadInput, es + "operators[0].properties.columns[0].properties.arguments", "want an array of Literal or ColumnReference expressions"},
		{"argument not an object", mf("[" + fc("u", `[1]`) + "]"), BadInput, es + "operators[0].properties.columns[0].properties.arguments[0]", "want {expressionType: Literal | ColumnReference, ...}"},
		{"nested expression", mf("[" + fc("u", `[{"expressionType":"FunctionCall"}]`) + "]"), BadInput, es + "operators[0].properties.columns[0].properties.arguments[0].expressionType", `"FunctionCall" is not Literal or ColumnReference (nested expressions are not built)`},
		{"BigInt literal not an integer", mf("[" + fc("u", `[{"expressionType":"Literal","dataType":"BigInt","value":"1.5"}]`) + "]"), BadInput, es + "operators[0].properties.columns[0].properties.arguments[0].value", `"1.5" is not an integer (dataType BigInt)`},
		{"computed over a kept column", mf(`[{"type":"Rename","properties":{"column":"a"}},` + fc("a", `[]`) + `]`), BadInput, es + "operators[0].properties.columns[1].alias", `column "a" is also output by another column`},
		{"computed over an alias", mf(`[{"type":"Rename","alias":"b","properties":{"column":"a"}},` + fc("b", `[]`) + `]`), BadInput, es + "operators[0].properties.columns[1].alias", `column "b" is also the alias of column "a"`},
		{"computed twice", mf("[" + fc("u", `[]`) + "," + fc("u", `[]`) + "]"), BadInput, es + "operators[0].properties.columns[1].alias", `column "u" is computed twice`},
		{"function not built", mf(`[{"type":"FunctionCall","alias":"u","properties":{"functionName":"NoSuchFunction","arguments":[]}}]`), NotSupported, "operators[0].compute[0].fn", `operator "f" (operators[0]): `},
		// Aggregate and GroupBy fields.
		{"no aggregations", opTopo("Aggregate", `{}`), BadInput, es + "operators[0].properties.aggregations", "want a non-empty array of {aggregationFunction, column, alias, partitionBy, duration}"},
		{"aggregation not an object", opTopo("Aggregate", `{"aggregations":[1]}`), BadInput, es + "operators[0].properties.aggregations[0]", "want {aggregationFunction, column, alias, partitionBy, duration}"},
		{"partitionBy not a reference", opTopo("Aggregate", `{"aggregations":[{"aggregationFunction":"Sum","column":"v","partitionBy":[1]}]}`), BadInput, es + "operators[0].properties.aggregations[0].partitionBy[0]", "want a column reference {columnName}"},
		{"GroupBy aggregation not an object", opTopo("GroupBy", `{"aggregations":["x"]}`), BadInput, es + "operators[0].properties.aggregations[0]", "want {aggregationFunction, column, alias}"},
		{"groupBy not a reference", opTopo("GroupBy", `{"aggregations":[{"aggregationFunction":"Count"}],"groupBy":[{}]}`), BadInput, es + "operators[0].properties.groupBy[0].columnName", "required"},
		{"GroupBy without a window", opTopo("GroupBy", `{"aggregations":[{"aggregationFunction":"Count"}]}`), BadInput, es + "operators[0].properties.window", "required: {type: Tumbling|Hopping|Sliding|Session|Snapshot"},
		// Destinations.
		{"destination without input", topo(srcCE, defSt, `[]`, `[{"name":"lake","type":"Lakehouse"}]`), BadInput, es + "destinations[0].inputNodes", "a destination reads exactly one stream or operator"},
		{"destination reads a source", topo(srcCE, defSt, `[]`, `[{"name":"lake","type":"Lakehouse","inputNodes":[{"name":"src"}]}]`), BadInput, es + "destinations[0].inputNodes", `"src" is a source; sources feed the DefaultStream "main"`},
		{"destination reads nothing known", topo(srcCE, defSt, `[]`, `[{"name":"lake","type":"Lakehouse","inputNodes":[{"name":"ghost"}]}]`), BadInput, es + "destinations[0].inputNodes", `"ghost" is not a node of this definition`},
		{"destination reads a destination", topo(srcCE, defSt, `[]`, `[`+lake2+`,{"name":"l2","type":"Lakehouse","inputNodes":[{"name":"lake"}]}]`), BadInput, es + "destinations[1].inputNodes", `"lake" is a destination`},
		{"cycle", topo(srcCE, defSt, opsAB, `[{"name":"lake","type":"Lakehouse","inputNodes":[{"name":"a"}]}]`), BadInput, es + "destinations[0].inputNodes", "its inputs form a cycle"},
		{"DerivedStream in a cycle", topo(srcCE, `[{"name":"main","type":"DefaultStream"},{"name":"d","type":"DerivedStream","inputNodes":[{"name":"a"}]}]`, opsAB, `[]`), BadInput, es + "streams[1].inputNodes", "its inputs form a cycle"},
		{"Notebook", topo(srcCE, defSt, `[]`, `[{"name":"nb","type":"Notebook","inputNodes":[{"name":"main"}]}]`), NotSupported, "destinations[0].type", "notebooks read the stream themselves"},
		{"unknown destination", topo(srcCE, defSt, `[]`, `[{"name":"k","type":"Kusto","inputNodes":[{"name":"main"}]}]`), BadInput, es + "destinations[0].type", `"Kusto" is not one of Lakehouse, Eventhouse, Activator, CustomEndpoint, Notebook`},
		{"Eventhouse without a table", topo(srcCE, defSt, `[]`, `[{"name":"h","type":"Eventhouse","properties":{"itemId":"`+houseID+`"},"inputNodes":[{"name":"main"}]}]`), BadInput, es + "destinations[0].properties.tableName", "required: the emulator delivers into a named table"},
		{"CustomEndpoint reads an operator", topo(srcCE, defSt, filter, `[{"name":"ce","type":"CustomEndpoint","inputNodes":[{"name":"f"}]}]`), BadInput, es + "destinations[0].inputNodes", `it reads operator "f", which has no topic of its own`},
		{"same target twice", topo(srcCE, defSt, `[]`, `[`+lake2+`,{"name":"again","type":"Lakehouse","properties":{"itemId":"`+lakeID+`","tableName":"t1"},"inputNodes":[{"name":"main"}]}]`), BadInput, es + "destinations[1].properties", `destination "lake" already delivers to the same target`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := compile(t, newResolver(), c.topo)
			refusal(t, err, c.kind, c.field, c.msg)
		})
	}
}

// TestCorruptedParts: a topology or .platform that is not a JSON object
// is refused as corrupted, with the decoding error for the caller to
// describe.
func TestCorruptedParts(t *testing.T) {
	for _, s := range []string{`{`, `null`, `[1]`, ``} {
		_, err := compile(t, newResolver(), s)
		var r *Refusal
		if !errors.As(err, &r) || r.Kind != Corrupted || r.Message != "eventstream.json is not a JSON object: " {
			t.Fatalf("%q: got %v", s, err)
		}
		if (s == `null`) != (r.JSON == nil) {
			t.Fatalf("%q: JSON error %v", s, r.JSON)
		}
	}
	in := Input{Parts: Parts{Topology: json.RawMessage(topo(srcCE, defSt, `[]`, `[]`)), Platform: json.RawMessage(`{"metadata":1}`)}}
	_, err := Compile(t.Context(), in, newResolver())
	var r *Refusal
	if !errors.As(err, &r) || r.Kind != Corrupted || r.Message != ".platform: " || r.JSON == nil {
		t.Fatalf(".platform: got %v", err)
	}
}

// TestResolverErrorsPassThrough: the resolver's own errors (authorisation,
// items not found) come back unchanged, and it is asked in the node's terms.
func TestResolverErrorsPassThrough(t *testing.T) {
	denied := errors.New("denied")
	r := newResolver()
	r.dstErr = denied
	_, err := compile(t, r, topo(srcCE, defSt, `[]`, `[`+lake2+`]`))
	if !errors.Is(err, denied) {
		t.Fatalf("got %v, want the resolver's error", err)
	}
	if r.fields["table"] != "eventstream.json destinations[0].properties.deltaTable" || r.fields["workspaceId"] != "eventstream.json destinations[0].properties.workspaceId" {
		t.Fatalf("fields %v", r.fields)
	}
	r = newResolver()
	r.srcErr = denied
	if _, err := compile(t, r, topo(srcCE, defSt, `[]`, `[]`)); !errors.Is(err, denied) {
		t.Fatalf("source: got %v", err)
	}
}
