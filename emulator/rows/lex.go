package rows

import "unicode/utf8"

// The byte scanners below take the text and a position and return the
// position after what they read, so that a caller keeps its position in a
// register; plainDecoder and ScanFlat share them.

// special marks the bytes a plain string cannot simply pass over: its
// closing quote, an escape, a control character, and the first byte of a
// multi-byte UTF-8 sequence (which must then be checked).
var special = func() (t [256]bool) {
	for c := range 0x20 {
		t[c] = true
	}
	for c := 0x80; c < 0x100; c++ {
		t[c] = true
	}
	t['"'], t['\\'] = true, true
	return t
}()

// skipSpace returns the position of the first byte at or after i that is
// not JSON white space.
func skipSpace(b []byte, i int) int {
	for i < len(b) && b[i] <= ' ' && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// scanPlainString reads the string whose opening quote is at i: its text
// without the quotes, and the position after the closing quote; false for
// a string with an escape or a control character, invalid UTF-8, or no
// end.
func scanPlainString(b []byte, i int) (text []byte, next int, ok bool) {
	start := i + 1
	ascii := true
	for j := start; j < len(b); j++ {
		c := b[j]
		if !special[c] {
			continue
		}
		switch {
		case c == '"':
			if !ascii && !utf8.Valid(b[start:j]) {
				return nil, i, false
			}
			return b[start:j], j + 1, true
		case c >= 0x80:
			ascii = false
		default: // an escape or a control character
			return nil, i, false
		}
	}
	return nil, i, false
}

// scanNumber reads -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)? at i and
// returns the position after it; false when no such number starts there.
func scanNumber(b []byte, i int) (int, bool) {
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	default:
		j := scanDigits(b, i)
		if j == i {
			return i, false
		}
		i = j
	}
	if i < len(b) && b[i] == '.' {
		j := scanDigits(b, i+1)
		if j == i+1 {
			return i, false
		}
		i = j
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		j := scanDigits(b, i)
		if j == i {
			return i, false
		}
		i = j
	}
	return i, true
}

// scanDigits returns the position after the decimal digits at i.
func scanDigits(b []byte, i int) int {
	for i < len(b) && '0' <= b[i] && b[i] <= '9' {
		i++
	}
	return i
}

// scanWord returns the position after w when w is at i.
func scanWord(b []byte, i int, w string) (int, bool) {
	if len(b)-i < len(w) || string(b[i:i+len(w)]) != w {
		return i, false
	}
	return i + len(w), true
}
