package asaql

import (
	"encoding/json"
	"strings"
)

// comparisons are the comparison symbols.
var comparisons = map[string]bool{"=": true, "==": true, "!=": true, "<>": true, "<": true, "<=": true, ">": true, ">=": true}

// maxDepth bounds how deeply expressions nest.
const maxDepth = 64

// expr reads OR-combined conditions or a single expression.
func (p *parser) expr() (Expr, error) { return p.or(0) }

func (p *parser) or(d int) (Expr, error) {
	return p.binaryChain(d, "OR", p.and)
}

func (p *parser) and(d int) (Expr, error) {
	return p.binaryChain(d, "AND", p.not)
}

// binaryChain reads sub {kw sub}, left-associative.
func (p *parser) binaryChain(d int, kw string, sub func(int) (Expr, error)) (Expr, error) {
	if d > maxDepth {
		return nil, syntax(p.peek().pos, "the expression nests deeper than %d", maxDepth)
	}
	l, err := sub(d + 1)
	if err != nil {
		return nil, err
	}
	for p.peek().is(kw) {
		t := p.next()
		r, err := sub(d + 1)
		if err != nil {
			return nil, err
		}
		l = &Binary{Pos: t.pos, Op: kw, L: l, R: r}
	}
	return l, nil
}

func (p *parser) not(d int) (Expr, error) {
	if t := p.peek(); t.is("NOT") {
		p.next()
		x, err := p.not(d + 1)
		if err != nil {
			return nil, err
		}
		return &Not{Pos: t.pos, X: x}, nil
	}
	return p.comparison(d + 1)
}

// comparison reads operand [cmp operand | IS [NOT] NULL | [NOT] LIKE 'p'].
func (p *parser) comparison(d int) (Expr, error) {
	l, err := p.operand(d + 1)
	if err != nil {
		return nil, err
	}
	t := p.peek()
	switch {
	case t.kind == tSym && comparisons[t.text]:
		p.next()
		r, err := p.operand(d + 1)
		if err != nil {
			return nil, err
		}
		return &Binary{Pos: t.pos, Op: t.text, L: l, R: r}, nil
	case t.is("IS"):
		p.next()
		neg := p.accept("NOT")
		if err := p.expect("NULL"); err != nil {
			return nil, err
		}
		return &IsNull{Pos: t.pos, X: l, Negate: neg}, nil
	case t.is("LIKE") || t.is("NOT") && p.toks[p.i+1].is("LIKE"):
		neg := p.accept("NOT")
		p.next()
		s := p.next()
		if s.kind != tString {
			return nil, syntax(s.pos, "LIKE takes a quoted pattern")
		}
		return &Like{Pos: t.pos, X: l, Pattern: s.text, Negate: neg}, nil
	}
	return l, nil
}

// operand reads a primary and refuses arithmetic after it.
func (p *parser) operand(d int) (Expr, error) {
	x, err := p.primary(d + 1)
	if err != nil {
		return nil, err
	}
	if t := p.peek(); t.kind == tSym && strings.Contains("+-*/%&|^", t.text) {
		return nil, unsupported(t.pos, "the arithmetic operator '"+t.text+"'", "")
	}
	return x, nil
}

// primary reads a literal, a parenthesised expression, CAST, a call or a
// column.
func (p *parser) primary(d int) (Expr, error) {
	t := p.peek()
	switch {
	case t.kind == tString:
		p.next()
		return &Literal{Pos: t.pos, Value: t.text}, nil
	case t.kind == tNumber:
		p.next()
		return &Literal{Pos: t.pos, Value: json.Number(t.text)}, nil
	case t.sym("-") && p.toks[p.i+1].kind == tNumber:
		p.next()
		n := p.next()
		return &Literal{Pos: t.pos, Value: json.Number("-" + n.text)}, nil
	case t.sym("("):
		p.next()
		if p.peek().is("SELECT") {
			return nil, unsupported(p.peek().pos, "a subquery", "")
		}
		x, err := p.or(d + 1)
		if err != nil {
			return nil, err
		}
		return x, p.expectSym(")")
	case t.is("NULL"), t.is("TRUE"), t.is("FALSE"):
		p.next()
		v := map[string]any{"NULL": nil, "TRUE": true, "FALSE": false}[strings.ToUpper(t.text)]
		return &Literal{Pos: t.pos, Value: v}, nil
	case t.is("CAST"), t.is("TRY_CAST"):
		return p.cast()
	case t.kind == tIdent || t.kind == tQuoted:
		return p.columnOrCall(d)
	}
	return nil, p.unexpected("a column, literal or function call")
}

// cast reads CAST(x AS type).
func (p *parser) cast() (Expr, error) {
	t := p.next()
	if t.is("TRY_CAST") {
		return nil, unsupported(t.pos, "TRY_CAST", "use CAST")
	}
	if err := p.expectSym("("); err != nil {
		return nil, err
	}
	x, err := p.operand(0)
	if err != nil {
		return nil, err
	}
	if err := p.expect("AS"); err != nil {
		return nil, err
	}
	typ := p.next()
	if typ.kind != tIdent {
		return nil, syntax(typ.pos, "want a type after AS")
	}
	name := typ.text
	if p.acceptSym("(") { // nvarchar(max)
		arg := p.next()
		name += "(" + arg.text + ")"
		if err := p.expectSym(")"); err != nil {
			return nil, err
		}
	}
	return &Cast{Pos: t.pos, X: x, Type: name}, p.expectSym(")")
}

// columnOrCall reads a dotted name, then a call's arguments when '(' follows.
func (p *parser) columnOrCall(d int) (Expr, error) {
	first := p.peek()
	if first.kind == tIdent && reserved(first.text) {
		return nil, p.unexpected("a column, literal or function call")
	}
	p.next()
	segs := []string{first.text}
	for p.peek().sym(".") {
		p.next()
		s := p.next()
		if s.kind != tIdent && s.kind != tQuoted {
			return nil, syntax(s.pos, "want a name after '.'")
		}
		segs = append(segs, s.text)
	}
	if !p.peek().sym("(") {
		return &Column{Pos: first.pos, Path: strings.Join(segs, "."), Last: segs[len(segs)-1]}, nil
	}
	return p.callArgs(d, first.pos, strings.Join(segs, "."))
}

// callArgs reads (args) of the call of name.
func (p *parser) callArgs(d, pos int, name string) (Expr, error) {
	p.next()
	c := &Call{Pos: pos, Name: name}
	if p.acceptSym("*") {
		c.Star = true
		return c, p.expectSym(")")
	}
	if p.acceptSym(")") {
		return c, nil
	}
	for {
		if t := p.peek(); t.is("DISTINCT") {
			return nil, unsupported(t.pos, "DISTINCT in "+name+"()", "")
		}
		x, err := p.or(d + 1)
		if err != nil {
			return nil, err
		}
		c.Args = append(c.Args, x)
		if !p.acceptSym(",") {
			break
		}
	}
	if t := p.peek(); t.is("OVER") {
		return nil, unsupported(t.pos, "OVER", "")
	}
	return c, p.expectSym(")")
}
