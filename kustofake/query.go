package kustofake

import (
	"strconv"
)

// result is a tabular answer: columns and rows of stored values.
type result struct {
	columns []Column
	rows    [][]any
}

// query is a parsed tabular query: a table and a pipe of operators.
type query struct {
	table string
	ops   []queryOp
}

// queryOp is one operator after a pipe.
type queryOp struct {
	kind  string // count, take, project, where
	n     int64
	cols  []string
	preds []predicate
}

// predicate is column ==|!= literal.
type predicate struct {
	col string
	op  string
	lit literal
}

// literal is a scalar literal of a where predicate.
type literal struct {
	kind string // string, long, real, bool
	text string
	i    int64
	f    float64
	b    bool
}

// parseQuery parses the queries this engine knows.
func parseQuery(src string) (*query, *engineError) {
	p, err := newParser(src)
	if err != nil {
		return nil, err
	}
	if p.tok.kind == tokCommand {
		return nil, badRequest("", "Control commands (starting with a dot '.') cannot be sent to the query endpoint; send them to /v1/rest/mgmt.")
	}
	if p.tok.kind == tokEOF {
		return nil, p.fail()
	}
	if p.tok.kind == tokIdent && (p.tok.text == "let" || p.tok.text == "declare" || p.tok.text == "set") {
		return nil, notSupported("%s statements", p.tok.text)
	}
	q := &query{}
	if q.table, err = p.name(); err != nil {
		return nil, err
	}
	for p.punct("|") {
		if err := p.advance(); err != nil {
			return nil, err
		}
		op, err := p.queryOperator()
		if err != nil {
			return nil, err
		}
		q.ops = append(q.ops, op)
	}
	return q, p.end("the query")
}

// queryOperator parses one operator after a pipe.
func (p *parser) queryOperator() (queryOp, *engineError) {
	if p.tok.kind == tokEOF || p.tok.kind == tokPunct {
		return queryOp{}, p.fail()
	}
	if p.tok.kind != tokIdent {
		return queryOp{}, notSupported("the query operator %q", p.tok.text)
	}
	kind := p.tok.text
	switch kind {
	case "count":
		return queryOp{kind: "count"}, p.advance()
	case "take", "limit":
		if err := p.advance(); err != nil {
			return queryOp{}, err
		}
		if p.tok.kind == tokEOF || p.punct("|") {
			return queryOp{}, p.fail()
		}
		if p.tok.kind != tokNumber {
			return queryOp{}, notSupported("%s with %q (only an integer literal)", kind, p.tok.text)
		}
		n, err := strconv.ParseInt(p.tok.text, 10, 64)
		if err != nil {
			return queryOp{}, notSupported("%s with %q (only an integer literal)", kind, p.tok.text)
		}
		return queryOp{kind: "take", n: n}, p.advance()
	case "project":
		if err := p.advance(); err != nil {
			return queryOp{}, err
		}
		op := queryOp{kind: "project"}
		for {
			col, err := p.name()
			if err != nil {
				return queryOp{}, err
			}
			if p.punct("=") || p.punct("(") {
				return queryOp{}, notSupported("computed columns in project")
			}
			op.cols = append(op.cols, col)
			if !p.punct(",") {
				return op, nil
			}
			if err := p.advance(); err != nil {
				return queryOp{}, err
			}
		}
	case "where", "filter":
		if err := p.advance(); err != nil {
			return queryOp{}, err
		}
		op := queryOp{kind: "where"}
		for {
			pr, err := p.predicate()
			if err != nil {
				return queryOp{}, err
			}
			op.preds = append(op.preds, pr)
			if !p.word("and") {
				return op, nil
			}
			if err := p.advance(); err != nil {
				return queryOp{}, err
			}
		}
	}
	return queryOp{}, notSupported("the query operator %q", kind)
}

// predicate parses name ==|!= literal, or literal ==|!= name.
func (p *parser) predicate() (predicate, *engineError) {
	var pr predicate
	var haveCol, haveLit bool
	for side := 0; side < 2; side++ {
		if side == 1 {
			if !p.punct("==") && !p.punct("!=") {
				if p.tok.kind == tokEOF || p.punct("|") {
					return pr, p.fail()
				}
				return pr, notSupported("the comparison %q in where (only == and !=)", p.tok.text)
			}
			pr.op = p.tok.text
			if err := p.advance(); err != nil {
				return pr, err
			}
		}
		lit, isLit, err := p.literal()
		if err != nil {
			return pr, err
		}
		if isLit {
			if haveLit {
				return pr, notSupported("comparing two literals")
			}
			pr.lit, haveLit = lit, true
			continue
		}
		if p.tok.kind == tokEOF || p.punct("|") {
			return pr, p.fail()
		}
		if haveCol {
			return pr, notSupported("comparing two columns")
		}
		col, err := p.name()
		if err != nil {
			return pr, err
		}
		if p.punct("(") || p.punct(".") || p.punct("[") {
			return pr, notSupported("functions and member access in where")
		}
		pr.col, haveCol = col, true
	}
	return pr, nil
}

// literal consumes a string, number or bool literal if one is next.
func (p *parser) literal() (literal, bool, *engineError) {
	neg := false
	if p.punct("-") {
		neg = true
		if err := p.advance(); err != nil {
			return literal{}, false, err
		}
		if p.tok.kind != tokNumber {
			return literal{}, false, p.fail()
		}
	}
	var l literal
	switch {
	case p.tok.kind == tokString:
		l = literal{kind: TypeString, text: p.tok.val}
	case p.tok.kind == tokNumber:
		text := p.tok.text
		if neg {
			text = "-" + text
		}
		if i, err := strconv.ParseInt(text, 10, 64); err == nil {
			l = literal{kind: TypeLong, text: text, i: i, f: float64(i)}
		} else if f, err := strconv.ParseFloat(text, 64); err == nil {
			l = literal{kind: TypeReal, text: text, f: f}
		} else {
			return literal{}, false, notSupported("the number %q", text)
		}
	case p.word("true") || p.word("false"):
		l = literal{kind: TypeBool, text: p.tok.text, b: p.tok.text == "true"}
	case p.tok.kind == tokOther:
		return literal{}, false, notSupported("the literal %q", p.tok.text)
	default:
		return literal{}, false, nil
	}
	return l, true, p.advance()
}

// runQuery evaluates q over a snapshot of its table; s.mu is held only for
// the snapshot.
func (s *Server) runQuery(dbName string, q *query) (*result, *engineError) {
	s.mu.Lock()
	d, err := s.lookupDB(dbName)
	if err != nil {
		s.mu.Unlock()
		return nil, err
	}
	t := d.tables[q.table]
	if t == nil {
		s.mu.Unlock()
		return nil, semanticError("SEM0100", "Failed to resolve table or column expression named '%s'", q.table)
	}
	cols := append([]Column(nil), t.columns...)
	stored := t.rows[:len(t.rows):len(t.rows)]
	s.mu.Unlock()

	rows := make([][]any, len(stored))
	for i, r := range stored {
		row := make([]any, len(cols))
		for j, c := range cols {
			if j < len(r) {
				row[j] = r[j]
			} else if c.Type == TypeString {
				row[j] = ""
			}
		}
		rows[i] = row
	}
	res := &result{columns: cols, rows: rows}
	for _, op := range q.ops {
		if res, err = applyOp(res, op); err != nil {
			return nil, err
		}
	}
	return res, nil
}

func columnIndex(cols []Column, name string) int {
	for i, c := range cols {
		if c.Name == name {
			return i
		}
	}
	return -1
}

// applyOp applies one operator.
func applyOp(in *result, op queryOp) (*result, *engineError) {
	switch op.kind {
	case "count":
		return &result{columns: []Column{{"Count", TypeLong}}, rows: [][]any{{int64(len(in.rows))}}}, nil
	case "take":
		n := op.n
		if n < 0 {
			n = 0
		}
		if n > int64(len(in.rows)) {
			n = int64(len(in.rows))
		}
		return &result{columns: in.columns, rows: in.rows[:n]}, nil
	case "project":
		idx := make([]int, len(op.cols))
		out := &result{}
		seen := map[string]bool{}
		for i, name := range op.cols {
			j := columnIndex(in.columns, name)
			if j < 0 {
				return nil, semanticError("SEM0100", "'project' operator: Failed to resolve scalar expression named '%s'", name)
			}
			if seen[name] {
				return nil, semanticError("", "'project' operator: the column '%s' is projected more than once", name)
			}
			seen[name] = true
			idx[i] = j
			out.columns = append(out.columns, in.columns[j])
		}
		for _, r := range in.rows {
			row := make([]any, len(idx))
			for i, j := range idx {
				row[i] = r[j]
			}
			out.rows = append(out.rows, row)
		}
		return out, nil
	case "where":
		type check struct {
			i    int
			pred predicate
			typ  string
		}
		checks := make([]check, len(op.preds))
		for k, pr := range op.preds {
			i := columnIndex(in.columns, pr.col)
			if i < 0 {
				return nil, semanticError("SEM0100", "'where' operator: Failed to resolve scalar expression named '%s'", pr.col)
			}
			typ := in.columns[i].Type
			switch typ {
			case TypeString:
				if pr.lit.kind != TypeString {
					return nil, semanticError("", "Cannot compare values of types string and %s. Try adding explicit casts", pr.lit.kind)
				}
			case TypeLong, TypeInt, TypeReal:
				if pr.lit.kind != TypeLong && pr.lit.kind != TypeReal {
					return nil, semanticError("", "Cannot compare values of types %s and %s. Try adding explicit casts", typ, pr.lit.kind)
				}
			case TypeBool:
				if pr.lit.kind != TypeBool {
					return nil, semanticError("", "Cannot compare values of types bool and %s. Try adding explicit casts", pr.lit.kind)
				}
			default:
				return nil, notSupported("comparing a %s column in where", typ)
			}
			checks[k] = check{i, pr, typ}
		}
		out := &result{columns: in.columns}
		for _, r := range in.rows {
			keep := true
			for _, c := range checks {
				v := r[c.i]
				if v == nil {
					keep = false
					break
				}
				var eq bool
				switch c.typ {
				case TypeString:
					eq = v.(string) == c.pred.lit.text
				case TypeLong, TypeInt:
					if c.pred.lit.kind == TypeLong {
						eq = v.(int64) == c.pred.lit.i
					} else {
						eq = float64(v.(int64)) == c.pred.lit.f
					}
				case TypeReal:
					eq = v.(float64) == c.pred.lit.f
				case TypeBool:
					eq = v.(bool) == c.pred.lit.b
				}
				if eq != (c.pred.op == "==") {
					keep = false
					break
				}
			}
			if keep {
				out.rows = append(out.rows, r)
			}
		}
		return out, nil
	}
	return nil, notSupported("the query operator %q", op.kind)
}
