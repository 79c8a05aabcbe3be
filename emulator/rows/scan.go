package rows

import "bytes"

// quickPass tells, by one pass over the bytes and without decoding, that a
// JSON value certainly passes Check: it nests at most MaxDepth levels and
// every member name is printable ASCII that is not all spaces. It is
// conservative: false only means the value must be decoded and checked
// (escapes, non-ASCII or empty names, deep nesting, malformed text).
func quickPass(value []byte) bool {
	depth := 0
	for i := 0; i < len(value); i++ {
		c := value[i]
		if !structural[c] {
			continue
		}
		switch c {
		case '{', '[':
			depth++
			if depth > MaxDepth {
				return false
			}
		case '}', ']':
			depth--
		case '"':
			end, plain := scanString(value, i+1)
			if end < 0 {
				return false
			}
			if isKey(value, end+1) && (!plain || !printableName(value[i+1:end])) {
				return false
			}
			i = end
		}
	}
	return true
}

// structural marks the bytes quickPass stops at; it skips the others
// without a comparison each.
var structural = [256]bool{'{': true, '[': true, '}': true, ']': true, '"': true}

// scanString returns the index of the closing quote of the string whose
// text starts at from (-1 when there is none), and whether the text has no
// escape. It jumps from quote to quote: a quote preceded by an odd run of
// backslashes is escaped.
func scanString(b []byte, from int) (int, bool) {
	plain := true
	for i := from; i <= len(b); {
		q := bytes.IndexByte(b[i:], '"')
		if q < 0 {
			return -1, false
		}
		end := i + q
		if bytes.IndexByte(b[i:end], '\\') < 0 {
			return end, plain
		}
		plain = false
		run := 0
		for j := end - 1; j >= from && b[j] == '\\'; j-- {
			run++
		}
		if run%2 == 0 {
			return end, false
		}
		i = end + 1
	}
	return -1, false
}

// isKey tells whether a colon follows position at, after white space: the
// string before at is a member name.
func isKey(b []byte, at int) bool {
	for ; at < len(b); at++ {
		switch b[at] {
		case ' ', '\t', '\r', '\n':
		case ':':
			return true
		default:
			return false
		}
	}
	return false
}

// printableName tells whether a name is printable ASCII with a character
// other than a space: such a name passes CheckName.
func printableName(name []byte) bool {
	blank := true
	for _, c := range name {
		if c < 0x20 || c >= 0x7f {
			return false
		}
		if c != ' ' {
			blank = false
		}
	}
	return !blank
}
