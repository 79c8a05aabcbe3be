package asaql

import "strings"

// refusedKeywords are keywords that start a construct outside the subset,
// by upper-cased spelling, with the construct's name.
var refusedKeywords = map[string]string{
	"JOIN": "JOIN", "INNER": "JOIN", "LEFT": "JOIN", "RIGHT": "JOIN", "OUTER": "JOIN", "CROSS": "CROSS APPLY",
	"UNION": "UNION", "HAVING": "HAVING", "WITH": "WITH", "CASE": "CASE", "APPLY": "APPLY",
	"ORDER": "ORDER BY", "LIMIT": "LIMIT DURATION", "PARTITION": "PARTITION BY", "OVER": "OVER",
	"DISTINCT": "DISTINCT", "TOP": "TOP", "IN": "IN", "BETWEEN": "BETWEEN", "EXISTS": "EXISTS",
	"MATCH_RECOGNIZE": "MATCH_RECOGNIZE", "WHEN": "CASE", "CREATE": "CREATE TABLE", "ALL": "UNION ALL",
}

// parser reads tokens with one token of lookahead.
type parser struct {
	toks []token
	i    int
}

func (p *parser) peek() token { return p.toks[p.i] }

func (p *parser) next() token {
	t := p.toks[p.i]
	if t.kind != tEOF {
		p.i++
	}
	return t
}

// accept consumes keyword kw when it is next.
func (p *parser) accept(kw string) bool {
	if p.peek().is(kw) {
		p.i++
		return true
	}
	return false
}

// acceptSym consumes symbol s when it is next.
func (p *parser) acceptSym(s string) bool {
	if p.peek().sym(s) {
		p.i++
		return true
	}
	return false
}

// expect consumes keyword kw or fails.
func (p *parser) expect(kw string) error {
	if !p.accept(kw) {
		return p.unexpected(kw)
	}
	return nil
}

// expectSym consumes symbol s or fails.
func (p *parser) expectSym(s string) error {
	if !p.acceptSym(s) {
		return p.unexpected("'" + s + "'")
	}
	return nil
}

// unexpected refuses the next token, naming the construct when it starts
// one outside the subset.
func (p *parser) unexpected(want string) error {
	t := p.peek()
	if t.kind == tIdent {
		if c, ok := refusedKeywords[strings.ToUpper(t.text)]; ok {
			return unsupported(t.pos, c, "")
		}
	}
	if t.kind == tIdent && strings.EqualFold(t.text, "SELECT") {
		return unsupported(t.pos, "more than one SELECT statement", "the SQL operator runs one statement")
	}
	if t.kind == tEOF {
		return syntax(t.pos, "want %s, the query ends", want)
	}
	return syntax(t.pos, "want %s, got %q", want, t.text)
}

// Parse reads query as one statement of the subset.
func Parse(query string) (*Query, error) {
	toks, err := lex(query)
	if err != nil {
		return nil, err
	}
	p := &parser{toks: toks}
	q, err := p.query()
	if err != nil {
		return nil, err
	}
	p.acceptSym(";")
	if p.peek().kind != tEOF {
		return nil, p.unexpected("the end of the query")
	}
	return q, nil
}

// query reads SELECT ... [INTO] FROM ... [TIMESTAMP BY] [WHERE] [GROUP BY].
func (p *parser) query() (*Query, error) {
	if err := p.expect("SELECT"); err != nil {
		return nil, err
	}
	q := &Query{}
	if err := p.selectList(q); err != nil {
		return nil, err
	}
	if p.accept("INTO") {
		name, err := p.name()
		if err != nil {
			return nil, err
		}
		q.Into = name
	}
	if err := p.expect("FROM"); err != nil {
		return nil, err
	}
	if p.peek().sym("(") {
		return nil, unsupported(p.peek().pos, "a subquery", "")
	}
	from, err := p.name()
	if err != nil {
		return nil, err
	}
	q.From = from
	if err := p.tail(q); err != nil {
		return nil, err
	}
	return q, nil
}

// tail reads the clauses after FROM.
func (p *parser) tail(q *Query) error {
	if p.accept("TIMESTAMP") {
		if err := p.expect("BY"); err != nil {
			return err
		}
		t := p.peek()
		x, err := p.expr()
		if err != nil {
			return err
		}
		c, ok := x.(*Column)
		if !ok {
			return unsupported(t.pos, "TIMESTAMP BY an expression", "TIMESTAMP BY takes a column")
		}
		q.TimestampBy = c.Path
	}
	if p.accept("WHERE") {
		x, err := p.expr()
		if err != nil {
			return err
		}
		q.Where = x
	}
	if p.accept("GROUP") {
		if err := p.expect("BY"); err != nil {
			return err
		}
		for {
			x, err := p.expr()
			if err != nil {
				return err
			}
			q.GroupBy = append(q.GroupBy, x)
			if !p.acceptSym(",") {
				break
			}
		}
	}
	return nil
}

// selectList reads * or the items.
func (p *parser) selectList(q *Query) error {
	if p.acceptSym("*") {
		q.Star = true
		if p.peek().sym(",") {
			return unsupported(p.peek().pos, "SELECT * with other columns", "")
		}
		return nil
	}
	for {
		x, err := p.expr()
		if err != nil {
			return err
		}
		it := Item{X: x}
		if p.accept("AS") {
			if it.Alias, err = p.name(); err != nil {
				return err
			}
		}
		q.Items = append(q.Items, it)
		if !p.acceptSym(",") {
			return nil
		}
	}
}

// name reads a plain or bracketed name.
func (p *parser) name() (string, error) {
	t := p.peek()
	if t.kind == tQuoted || t.kind == tIdent && !reserved(t.text) {
		p.i++
		return t.text, nil
	}
	return "", p.unexpected("a name")
}

// reserved reports whether word is a keyword that cannot be a plain name.
func reserved(word string) bool {
	switch strings.ToUpper(word) {
	case "SELECT", "FROM", "INTO", "WHERE", "GROUP", "BY", "AS", "AND", "OR", "NOT", "IS", "NULL", "LIKE", "TIMESTAMP":
		return true
	}
	_, refused := refusedKeywords[strings.ToUpper(word)]
	return refused
}
