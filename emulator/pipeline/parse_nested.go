package pipeline

import "strings"

// parseInputs reads "inputs": [[operator...]...], each input a chain.
func parseInputs(o obj) ([][]Operator, error) {
	at := join(o.path, "inputs")
	raw, ok := o.m["inputs"]
	if !ok {
		return nil, invalid(at, "required: an array of operator arrays, one per input")
	}
	list, ok := raw.([]any)
	if !ok {
		return nil, invalid(at, "want an array of operator arrays, got %s", jsonKind(raw))
	}
	out := make([][]Operator, len(list))
	for i, x := range list {
		in := index(at, i)
		items, ok := x.([]any)
		if !ok {
			return nil, invalid(in, "want an array of operators (empty for the input stream itself), got %s", jsonKind(x))
		}
		path := func(j int) string { return index(in, j) }
		var parsed []Operator
		for j, item := range items {
			op, err := parseOperator(item, path(j))
			if err != nil {
				return nil, err
			}
			parsed = append(parsed, op)
		}
		ops, err := fuseWindows(parsed, path)
		if err != nil {
			return nil, err
		}
		out[i] = ops
	}
	return out, nil
}

// parseUnion reads {"inputs": [[...], [...], ...]}.
func parseUnion(o obj, name string) (Operator, error) {
	ins, err := parseInputs(o)
	if err != nil {
		return nil, err
	}
	return Union{Name: name, Inputs: ins}, nil
}

// parseJoin reads {"joinType": "Inner"|"LeftOuter", "joinOn": [{left,
// right}...], "duration": D, "allowedLateness": D, "inputs": [[left...],
// [right...]]}.
func parseJoin(o obj, name string) (Operator, error) {
	typ, err := o.str("joinType", true)
	if err != nil {
		return nil, err
	}
	j := Join{Name: name, Kind: JoinKind(strings.ToLower(typ))}
	if j.On, err = parseJoinOn(o); err != nil {
		return nil, err
	}
	if j.Duration, err = o.duration("duration", true); err != nil {
		return nil, err
	}
	if j.AllowedLateness, err = o.duration("allowedLateness", false); err != nil {
		return nil, err
	}
	ins, err := parseInputs(o)
	if err != nil {
		return nil, err
	}
	if len(ins) != 2 {
		return nil, invalid(join(o.path, "inputs"), "a Join has two inputs (left, right), got %d", len(ins))
	}
	j.Left, j.Right = ins[0], ins[1]
	return j, nil
}

func parseJoinOn(o obj) ([]JoinOn, error) {
	raw, ok := o.m["joinOn"]
	if !ok || raw == nil {
		return nil, nil
	}
	list, ok := raw.([]any)
	if !ok {
		return nil, invalid(join(o.path, "joinOn"), "want an array of {left, right}, got %s", jsonKind(raw))
	}
	var out []JoinOn
	for i, x := range list {
		m, ok := x.(map[string]any)
		at := index(join(o.path, "joinOn"), i)
		if !ok {
			return nil, invalid(at, "want {left, right}, got %s", jsonKind(x))
		}
		po := obj{m: m, path: at}
		if err := po.only("left", "right"); err != nil {
			return nil, err
		}
		l, err := po.str("left", true)
		if err != nil {
			return nil, err
		}
		r, err := po.str("right", true)
		if err != nil {
			return nil, err
		}
		out = append(out, JoinOn{Left: l, Right: r})
	}
	return out, nil
}
