package rows

import "encoding/json"

// maxQuickDepth is the nesting IsObject reads itself; deeper text is left
// to encoding/json.
const maxQuickDepth = 64

// IsObject reports whether v is one JSON object, white space around it
// allowed: what encoding/json.Valid accepts and starts with '{'. The
// common text (strings without escapes, shallow nesting) is read by the
// scanners here, several times faster than a general validator; any
// text they cannot settle (an escape, deep nesting, an error) is handed
// to encoding/json, so the answer is always its.
func IsObject(v []byte) bool {
	i := skipSpace(v, 0)
	if i == len(v) || v[i] != '{' {
		return false
	}
	if end, ok := quickValue(v, i, 0); ok && skipSpace(v, end) == len(v) {
		return true
	}
	return json.Valid(v)
}

// quickValue returns the position after the JSON value at i; false when
// it is not valid or not one the quick scanners read.
func quickValue(b []byte, i, depth int) (int, bool) {
	if i >= len(b) {
		return i, false
	}
	switch b[i] {
	case '{':
		return quickObject(b, i, depth+1)
	case '[':
		return quickArray(b, i, depth+1)
	case '"':
		_, next, ok := scanPlainString(b, i)
		return next, ok
	case 't':
		return scanWord(b, i, "true")
	case 'f':
		return scanWord(b, i, "false")
	case 'n':
		return scanWord(b, i, "null")
	}
	return scanNumber(b, i)
}

// quickObject returns the position after the object whose '{' is at i.
func quickObject(b []byte, i, depth int) (int, bool) {
	if depth > maxQuickDepth {
		return i, false
	}
	if i = skipSpace(b, i+1); i < len(b) && b[i] == '}' {
		return i + 1, true
	}
	for ok := false; ; i = skipSpace(b, i+1) {
		if i >= len(b) || b[i] != '"' {
			return i, false
		}
		if _, i, ok = scanPlainString(b, i); !ok {
			return i, false
		}
		if i = skipSpace(b, i); i >= len(b) || b[i] != ':' {
			return i, false
		}
		if i, ok = quickValue(b, skipSpace(b, i+1), depth); !ok {
			return i, false
		}
		if i = skipSpace(b, i); i < len(b) && b[i] == '}' {
			return i + 1, true
		}
		if i >= len(b) || b[i] != ',' {
			return i, false
		}
	}
}

// quickArray returns the position after the array whose '[' is at i.
func quickArray(b []byte, i, depth int) (int, bool) {
	if depth > maxQuickDepth {
		return i, false
	}
	if i = skipSpace(b, i+1); i < len(b) && b[i] == ']' {
		return i + 1, true
	}
	for ok := false; ; i = skipSpace(b, i+1) {
		if i, ok = quickValue(b, i, depth); !ok {
			return i, false
		}
		if i = skipSpace(b, i); i < len(b) && b[i] == ']' {
			return i + 1, true
		}
		if i >= len(b) || b[i] != ',' {
			return i, false
		}
	}
}
