package asaql

import (
	"strconv"
	"strings"
	"unicode"
)

// tokKind is the kind of a token.
type tokKind int

const (
	tEOF    tokKind = iota
	tIdent          // a plain name or keyword
	tQuoted         // a bracketed name, [My Stream]
	tString         // 'text'
	tNumber         // 12, 1.5
	tSym            // punctuation and operators
)

// token is one lexeme of a query at byte offset pos.
type token struct {
	kind tokKind
	text string // names and symbols as written; strings unquoted
	pos  int
}

// is reports whether t is keyword kw (case-insensitive; not bracketed).
func (t token) is(kw string) bool { return t.kind == tIdent && strings.EqualFold(t.text, kw) }

// sym reports whether t is symbol s.
func (t token) sym(s string) bool { return t.kind == tSym && t.text == s }

// lex splits query into tokens, ending with tEOF; comments (-- to the end
// of the line, /* ... */) are skipped.
func lex(q string) ([]token, error) {
	var out []token
	for i := 0; i < len(q); {
		c := q[i]
		switch {
		case c == ' ' || c == '\t' || c == '\r' || c == '\n':
			i++
		case strings.HasPrefix(q[i:], "--"):
			for i < len(q) && q[i] != '\n' {
				i++
			}
		case strings.HasPrefix(q[i:], "/*"):
			end := strings.Index(q[i+2:], "*/")
			if end < 0 {
				return nil, syntax(i, "the comment is not closed with */")
			}
			i += end + 4
		default:
			t, n, err := lexOne(q, i)
			if err != nil {
				return nil, err
			}
			out = append(out, t)
			i += n
		}
	}
	return append(out, token{kind: tEOF, pos: len(q)}), nil
}

// lexOne reads the token at q[i:] and its length.
func lexOne(q string, i int) (token, int, error) {
	c := rune(q[i])
	switch {
	case c == '[':
		end := strings.IndexByte(q[i:], ']')
		if end < 0 {
			return token{}, 0, syntax(i, "the name is not closed with ]")
		}
		return token{kind: tQuoted, text: q[i+1 : i+end], pos: i}, end + 1, nil
	case c == '\'':
		return lexString(q, i)
	case c >= '0' && c <= '9':
		n := span(q[i:], func(r rune) bool { return r >= '0' && r <= '9' || r == '.' })
		if _, err := strconv.ParseFloat(q[i:i+n], 64); err != nil || strings.Count(q[i:i+n], ".") > 1 || q[i+n-1] == '.' {
			return token{}, 0, syntax(i, "%q is not a number", q[i:i+n])
		}
		return token{kind: tNumber, text: q[i : i+n], pos: i}, n, nil
	case c == '_' || unicode.IsLetter(c) || c >= 0x80:
		n := span(q[i:], func(r rune) bool { return r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) || r >= 0x80 })
		return token{kind: tIdent, text: q[i : i+n], pos: i}, n, nil
	}
	for _, s := range []string{"<=", ">=", "<>", "!=", "==", "=", "<", ">", ",", "(", ")", "*", ".", "+", "-", "/", "%", ";", "&", "|", "^"} {
		if strings.HasPrefix(q[i:], s) {
			return token{kind: tSym, text: s, pos: i}, len(s), nil
		}
	}
	return token{}, 0, syntax(i, "unexpected character %q", string(c))
}

// lexString reads a quoted string at q[i:] (” is a quote).
func lexString(q string, i int) (token, int, error) {
	var b strings.Builder
	for j := i + 1; j < len(q); j++ {
		if q[j] != '\'' {
			b.WriteByte(q[j])
			continue
		}
		if j+1 < len(q) && q[j+1] == '\'' {
			b.WriteByte('\'')
			j++
			continue
		}
		return token{kind: tString, text: b.String(), pos: i}, j + 1 - i, nil
	}
	return token{}, 0, syntax(i, "the string is not closed with '")
}

// span is the byte length of the prefix of s whose runes satisfy ok.
func span(s string, ok func(rune) bool) int {
	for j, r := range s {
		if !ok(r) {
			return j
		}
	}
	return len(s)
}
