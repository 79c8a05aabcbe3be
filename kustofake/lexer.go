package kustofake

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// tokKind classifies a KQL token.
type tokKind int

const (
	tokEOF     tokKind = iota
	tokIdent           // bare identifier or keyword
	tokName            // bracketed name: ['x'] or ["x"]
	tokString          // string literal
	tokNumber          // integer or real literal
	tokOther           // a literal this engine does not interpret (1day, 0x1F, …)
	tokPunct           // operator or punctuation
	tokCommand         // .command-word at the start of a management command
)

// token is one lexed token; val is the decoded text of names and strings.
type token struct {
	kind tokKind
	text string
	val  string
	pos  int
}

// lexer scans KQL text on demand, so that a caller can take the raw rest of
// the input (the data of .ingest inline) at any point.
type lexer struct {
	src string
	pos int
}

func (lx *lexer) skipSpace() {
	for lx.pos < len(lx.src) {
		c := lx.src[lx.pos]
		switch {
		case c == ' ' || c == '\t' || c == '\r' || c == '\n':
			lx.pos++
		case c == '/' && strings.HasPrefix(lx.src[lx.pos:], "//"):
			for lx.pos < len(lx.src) && lx.src[lx.pos] != '\n' {
				lx.pos++
			}
		default:
			return
		}
	}
}

func isIdentStart(r rune) bool { return r == '_' || unicode.IsLetter(r) }
func isIdentPart(r rune) bool  { return r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) }

// next returns the next token, or a SYN0002 error for text that cannot be a token.
func (lx *lexer) next() (token, error) {
	lx.skipSpace()
	start := lx.pos
	if start >= len(lx.src) {
		return token{kind: tokEOF, pos: start}, nil
	}
	rest := lx.src[start:]
	r, size := utf8.DecodeRuneInString(rest)

	switch {
	case r == '.' && len(rest) > 1 && isASCIILetter(rest[1]):
		end := 1
		for end < len(rest) && (isASCIILetter(rest[end]) || rest[end] == '-') {
			end++
		}
		lx.pos += end
		return token{kind: tokCommand, text: rest[:end], val: rest[:end], pos: start}, nil

	case r == '[' && len(rest) > 1 && isQuoteStart(rest[1:]):
		lx.pos++
		val, err := lx.stringLiteral()
		if err != nil {
			return token{}, err
		}
		if lx.pos >= len(lx.src) || lx.src[lx.pos] != ']' {
			return token{}, syntaxError(lx.src, lx.pos, lx.src[start:lx.pos])
		}
		lx.pos++
		return token{kind: tokName, text: lx.src[start:lx.pos], val: val, pos: start}, nil

	case isQuoteStart(rest):
		val, err := lx.stringLiteral()
		if err != nil {
			return token{}, err
		}
		return token{kind: tokString, text: lx.src[start:lx.pos], val: val, pos: start}, nil

	case r >= '0' && r <= '9':
		end := 0
		for end < len(rest) && isDigit(rest[end]) {
			end++
		}
		kind := tokNumber
		if end < len(rest) && rest[end] == '.' && end+1 < len(rest) && isDigit(rest[end+1]) {
			end++
			for end < len(rest) && isDigit(rest[end]) {
				end++
			}
		}
		if end < len(rest) && (rest[end] == 'e' || rest[end] == 'E') {
			e := end + 1
			if e < len(rest) && (rest[e] == '+' || rest[e] == '-') {
				e++
			}
			if e < len(rest) && isDigit(rest[e]) {
				for e < len(rest) && isDigit(rest[e]) {
					e++
				}
				end = e
			}
		}
		for end < len(rest) {
			r2, s2 := utf8.DecodeRuneInString(rest[end:])
			if !isIdentPart(r2) {
				break
			}
			kind = tokOther
			end += s2
		}
		lx.pos += end
		return token{kind: kind, text: rest[:end], val: rest[:end], pos: start}, nil

	case isIdentStart(r):
		end := size
		for end < len(rest) {
			r2, s2 := utf8.DecodeRuneInString(rest[end:])
			if !isIdentPart(r2) {
				break
			}
			end += s2
		}
		lx.pos += end
		return token{kind: tokIdent, text: rest[:end], val: rest[:end], pos: start}, nil
	}

	for _, p := range []string{"<|", "==", "!=", "=~", "!~", "<=", ">=", "=>"} {
		if strings.HasPrefix(rest, p) {
			lx.pos += len(p)
			return token{kind: tokPunct, text: p, val: p, pos: start}, nil
		}
	}
	if strings.ContainsRune("()[]{},:;|=<>.-+*/%!~", r) {
		lx.pos += size
		return token{kind: tokPunct, text: rest[:size], val: rest[:size], pos: start}, nil
	}
	return token{}, syntaxError(lx.src, start, string(r))
}

func isASCIILetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
func isDigit(c byte) bool       { return c >= '0' && c <= '9' }

// isQuoteStart reports whether s starts a string literal: a quote, or one of
// the prefixes @ (verbatim) and h/H (obfuscated) followed by a quote.
func isQuoteStart(s string) bool {
	if s == "" {
		return false
	}
	if s[0] == '\'' || s[0] == '"' {
		return true
	}
	if len(s) > 1 && (s[0] == '@' || s[0] == 'h' || s[0] == 'H') {
		if s[1] == '\'' || s[1] == '"' {
			return true
		}
		if len(s) > 2 && (s[0] == 'h' || s[0] == 'H') && s[1] == '@' && (s[2] == '\'' || s[2] == '"') {
			return true
		}
	}
	return false
}

// stringLiteral decodes the literal at lx.pos: 'x' and "x" with backslash
// escapes, @'x' and @"x" verbatim (a doubled quote stands for one quote).
func (lx *lexer) stringLiteral() (string, error) {
	start := lx.pos
	verbatim := false
	for lx.src[lx.pos] == 'h' || lx.src[lx.pos] == 'H' || lx.src[lx.pos] == '@' {
		if lx.src[lx.pos] == '@' {
			verbatim = true
		}
		lx.pos++
	}
	quote := lx.src[lx.pos]
	lx.pos++
	var b strings.Builder
	for {
		if lx.pos >= len(lx.src) {
			return "", syntaxError(lx.src, start, lx.src[start:])
		}
		c := lx.src[lx.pos]
		switch {
		case c == quote:
			if verbatim && lx.pos+1 < len(lx.src) && lx.src[lx.pos+1] == quote {
				b.WriteByte(quote)
				lx.pos += 2
				continue
			}
			lx.pos++
			return b.String(), nil
		case c == '\n' || c == '\r':
			return "", syntaxError(lx.src, start, lx.src[start:lx.pos])
		case c == '\\' && !verbatim:
			if lx.pos+1 >= len(lx.src) {
				return "", syntaxError(lx.src, start, lx.src[start:])
			}
			e := lx.src[lx.pos+1]
			switch e {
			case '\\', '\'', '"':
				b.WriteByte(e)
			case 'n':
				b.WriteByte('\n')
			case 'r':
				b.WriteByte('\r')
			case 't':
				b.WriteByte('\t')
			case 'u':
				if lx.pos+6 > len(lx.src) {
					return "", syntaxError(lx.src, lx.pos, lx.src[lx.pos:])
				}
				n, err := strconv.ParseUint(lx.src[lx.pos+2:lx.pos+6], 16, 32)
				if err != nil {
					return "", syntaxError(lx.src, lx.pos, lx.src[lx.pos:lx.pos+6])
				}
				b.WriteRune(rune(n))
				lx.pos += 6
				continue
			default:
				return "", syntaxError(lx.src, lx.pos, lx.src[lx.pos:lx.pos+2])
			}
			lx.pos += 2
		default:
			b.WriteByte(c)
			lx.pos++
		}
	}
}
