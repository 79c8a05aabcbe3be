package asaql

import "strings"

// flipped is the comparison with its operands swapped.
var flipped = map[string]string{"=": "=", "==": "=", "!=": "!=", "<>": "<>", "<": ">", "<=": ">=", ">": "<", ">=": "<="}

// condition compiles a WHERE expression into a pipeline condition.
func condition(x Expr) (map[string]any, error) {
	switch v := x.(type) {
	case *Binary:
		if v.Op == "AND" || v.Op == "OR" {
			return combine(v)
		}
		return comparison(v)
	case *Not:
		sub, err := condition(v.X)
		if err != nil {
			return nil, err
		}
		return map[string]any{"not": sub}, nil
	case *IsNull:
		col, ok := v.X.(*Column)
		if !ok {
			return nil, unsupported(v.Pos, "IS NULL of an expression", "compare a column")
		}
		op := "isNull"
		if v.Negate {
			op = "isNotNull"
		}
		return map[string]any{"field": col.Path, "op": op}, nil
	case *Like:
		return like(v)
	case *Column:
		return map[string]any{"field": v.Path, "op": "eq", "value": true}, nil
	}
	return nil, exprRefusal(x, "in WHERE")
}

// combine compiles AND / OR.
func combine(v *Binary) (map[string]any, error) {
	l, err := condition(v.L)
	if err != nil {
		return nil, err
	}
	r, err := condition(v.R)
	if err != nil {
		return nil, err
	}
	return map[string]any{strings.ToLower(v.Op): []any{l, r}}, nil
}

// comparison compiles column <op> literal (either way round).
func comparison(v *Binary) (map[string]any, error) {
	col, lcol := v.L.(*Column)
	lit, rlit := v.R.(*Literal)
	op := v.Op
	if !lcol || !rlit {
		c2, rcol := v.R.(*Column)
		l2, llit := v.L.(*Literal)
		switch {
		case lcol && rcol:
			return nil, unsupported(v.Pos, "comparing two columns", "compare a column with a literal")
		case !rcol || !llit:
			side := v.L
			if lcol {
				side = v.R
			}
			return nil, exprRefusal(side, "in a WHERE comparison")
		}
		col, lit, op = c2, l2, flipped[op]
	}
	if lit.Value == nil {
		return nil, syntax(v.Pos, "compare with NULL using IS NULL or IS NOT NULL")
	}
	if op == "==" {
		op = "="
	}
	return map[string]any{"field": col.Path, "op": op, "value": lit.Value}, nil
}

// like compiles column LIKE 'prefix%' | '%suffix' | '%infix%' | 'exact'.
func like(v *Like) (map[string]any, error) {
	col, ok := v.X.(*Column)
	if !ok {
		return nil, unsupported(v.Pos, "LIKE of an expression", "LIKE takes a column")
	}
	p := v.Pattern
	inner := strings.TrimSuffix(strings.TrimPrefix(p, "%"), "%")
	if strings.ContainsAny(inner, "%_[") {
		return nil, unsupported(v.Pos, "the LIKE pattern '"+p+"'", "patterns are 'text%', '%text', '%text%' or 'text' without _ or [")
	}
	op := "eq"
	switch pre, suf := strings.HasPrefix(p, "%"), strings.HasSuffix(p, "%") && len(p) > 1; {
	case pre && suf:
		op = "contains"
	case pre:
		op = "endsWith"
	case suf:
		op = "startsWith"
	}
	c := map[string]any{"field": col.Path, "op": op, "value": inner}
	if v.Negate {
		return map[string]any{"not": c}, nil
	}
	return c, nil
}
