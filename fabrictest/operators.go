package fabrictest

import (
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/fabrictest/fabrictest/emulator/pipeline"
)

// SetOperators replaces the Eventstream's operator chain (POST
// …/eventstreams/{id}/operators) and returns the chain as the emulator
// stored it, in canonical form; it fails the test unless the emulator
// answers 2xx. Kafka keeps the raw events; every destination sees the
// chain's output, and restarts on the new chain (open windows of the old one
// are dropped).
//
// Operators are given as one JSON document (a string, []byte or
// json.RawMessage holding an array, {"operators": [...]} or one operator),
// or as several values each of which is one operator: a pipeline.Operator
// (pipeline.Filter, pipeline.ManageFields, pipeline.GroupBy), a
// pipeline.Spec, JSON text, or a value that encodes to an operator object.
//
//	es.SetOperators(
//		pipeline.Filter{Condition: pipeline.Condition{Field: "temp", Op: pipeline.OpGt, Value: 20}},
//		pipeline.GroupBy{Keys: []string{"site"},
//			Aggregates: []pipeline.Aggregate{{Fn: pipeline.Count, As: "n"}},
//			Window:     pipeline.Window{Kind: pipeline.Tumbling, Duration: time.Minute, On: "ts"}},
//	)
//	es.SetOperators(`[{"type": "Filter", "condition": {"field": "temp", "op": "gt", "value": 20}}]`)
//
// Refused chains answer 400 EventstreamOperatorNotSupported (the SQL
// operator) or InvalidInput naming the field at fault; use
// TrySetOperators to assert them.
func (es Eventstream) SetOperators(ops ...any) []pipeline.Spec {
	es.env.t.Helper()
	out, err := es.TrySetOperators(ops...)
	if err != nil {
		es.env.t.Fatalf("fabrictest: set operators of eventstream %s: %v", es.ID, err)
	}
	return out
}

// TrySetOperators is SetOperators that returns the error (an *APIError for
// a refused chain) instead of failing the test.
func (es Eventstream) TrySetOperators(ops ...any) ([]pipeline.Spec, error) {
	body, err := operatorsBody(ops)
	if err != nil {
		return nil, err
	}
	var out struct {
		Operators []pipeline.Spec `json:"operators"`
	}
	if _, err := es.env.do(http.MethodPost, es.itemPath()+"/operators", nil, body, 0, &out); err != nil {
		return nil, err
	}
	return out.Operators, nil
}

// Operators returns the Eventstream's operator chain in canonical form
// (empty for none) and fails the test unless the emulator answers 2xx.
func (es Eventstream) Operators() []pipeline.Spec {
	es.env.t.Helper()
	out, err := es.TryOperators()
	if err != nil {
		es.env.t.Fatalf("fabrictest: get operators of eventstream %s: %v", es.ID, err)
	}
	return out
}

// TryOperators is Operators that returns the error instead of failing the
// test.
func (es Eventstream) TryOperators() ([]pipeline.Spec, error) {
	var out struct {
		Operators []pipeline.Spec `json:"operators"`
	}
	if _, err := es.env.do(http.MethodGet, es.itemPath()+"/operators", nil, nil, 0, &out); err != nil {
		return nil, err
	}
	return out.Operators, nil
}

// ClearOperators removes every operator: destinations see the raw events
// again. It fails the test unless the emulator answers 2xx.
func (es Eventstream) ClearOperators() {
	es.env.t.Helper()
	if err := es.TryClearOperators(); err != nil {
		es.env.t.Fatalf("fabrictest: clear operators of eventstream %s: %v", es.ID, err)
	}
}

// TryClearOperators is ClearOperators that returns the error instead of
// failing the test.
func (es Eventstream) TryClearOperators() error {
	_, err := es.env.do(http.MethodDelete, es.itemPath()+"/operators", nil, nil, 0, nil)
	return err
}

// operatorsBody renders SetOperators' arguments: one JSON document as is,
// otherwise an array of one operator object per argument.
func operatorsBody(ops []any) (json.RawMessage, error) {
	if len(ops) == 0 {
		return nil, fmt.Errorf("set operators: none given (use ClearOperators to remove them)")
	}
	if len(ops) == 1 {
		switch ops[0].(type) {
		case string, []byte, json.RawMessage:
			return rawJSON(ops[0], "operators")
		}
	}
	list := make([]json.RawMessage, len(ops))
	for i, op := range ops {
		what := fmt.Sprintf("operators[%d]", i)
		var err error
		switch o := op.(type) {
		case pipeline.Operator:
			list[i], err = rawJSON(o.Spec(), what)
		case []any, []pipeline.Operator, []pipeline.Spec:
			err = fmt.Errorf("%s: a list; pass operators one per argument (SetOperators(ops...))", what)
		default:
			list[i], err = rawJSON(o, what)
		}
		if err != nil {
			return nil, fmt.Errorf("set operators: %w", err)
		}
	}
	return json.Marshal(list)
}
