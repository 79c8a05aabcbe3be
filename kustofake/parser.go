package kustofake

// parser walks the tokens of one command or query.
type parser struct {
	lx  lexer
	tok token
}

func newParser(src string) (*parser, *engineError) {
	p := &parser{lx: lexer{src: src}}
	if err := p.advance(); err != nil {
		return nil, err
	}
	return p, nil
}

func (p *parser) advance() *engineError {
	t, err := p.lx.next()
	if err != nil {
		return err.(*engineError)
	}
	p.tok = t
	return nil
}

// word reports whether the current token is the bare word w.
func (p *parser) word(w string) bool { return p.tok.kind == tokIdent && p.tok.text == w }

// punct reports whether the current token is the punctuation s.
func (p *parser) punct(s string) bool { return p.tok.kind == tokPunct && p.tok.text == s }

// fail is a SYN0002 at the current token.
func (p *parser) fail() *engineError { return syntaxError(p.lx.src, p.tok.pos, p.tok.text) }

// expectPunct consumes s or fails with SYN0002.
func (p *parser) expectPunct(s string) *engineError {
	if !p.punct(s) {
		return p.fail()
	}
	return p.advance()
}

// expectWord consumes the bare word w; any other token is something this
// engine does not know, which may well be valid KQL.
func (p *parser) expectWord(w, context string) *engineError {
	if p.tok.kind == tokEOF {
		return p.fail()
	}
	if !p.word(w) {
		return notSupported("%s %q (expected %q)", context, p.tok.text, w)
	}
	return p.advance()
}

// end requires the end of the text.
func (p *parser) end(context string) *engineError {
	if p.punct(";") {
		if err := p.advance(); err != nil {
			return err
		}
	}
	if p.tok.kind != tokEOF {
		return notSupported("%s followed by %q", context, p.lx.src[p.tok.pos:])
	}
	return nil
}

// name consumes an entity name: bare, or quoted as ['x'] or ["x"]. A bare
// keyword from RefusedBareNames, a literal, or any other token is SYN0002; a
// name outside the entity-name rules is EntityNameIsNotValid.
func (p *parser) name() (string, *engineError) {
	var n string
	switch p.tok.kind {
	case tokIdent:
		if refusedBare[p.tok.text] {
			return "", p.fail()
		}
		n = p.tok.text
	case tokName:
		n = p.tok.val
	default:
		return "", p.fail()
	}
	if !validEntityName(n) {
		return "", invalidName(n)
	}
	return n, p.advance()
}
