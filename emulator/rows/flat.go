package rows

// Kind is the kind of a flat member's value (see ScanFlat).
type Kind uint8

// The kinds of a flat member's value.
const (
	Null Kind = iota
	String
	Number
	True
	False
)

// Member is one member of a flat JSON object as ScanFlat reads it. Name
// and Text are slices of the scanned value, valid as long as it is.
type Member struct {
	// Name is the member's name as written (it holds no escape).
	Name []byte
	// Kind is the kind of the member's value.
	Kind Kind
	// Text is a string's text without its quotes, or a number's literal;
	// empty for the other kinds.
	Text []byte
}

// maxFlatMembers bounds the members ScanFlat reads; a larger object takes
// FromValue's way (its repeated-name check is quadratic).
const maxFlatMembers = 64

// ScanFlat reads value, without decoding it into a Row, when FromValue
// would make it a row of plain members: a JSON object, surrounded by JSON
// white space at most, whose members have distinct names without escapes
// and whose values are strings without escapes or control characters
// (valid UTF-8), numbers, true, false or null. It appends the members to
// dst[:0] in their order and reports ok. Any other value (another JSON
// value, a nested object or array, an escape, invalid UTF-8, a repeated
// name, malformed text, more than 64 members) gives ok false, and the
// caller decodes it with FromValue: for every value ScanFlat accepts,
// FromValue's row has exactly these members, a string's text as a string
// and a number's literal as a json.Number.
func ScanFlat(dst []Member, value []byte) ([]Member, bool) {
	b, out := value, dst[:0]
	i := skipSpace(b, 0)
	if i >= len(b) || b[i] != '{' {
		return out, false
	}
	i = skipSpace(b, i+1)
	if i < len(b) && b[i] == '}' {
		return out, skipSpace(b, i+1) == len(b)
	}
	for len(out) < maxFlatMembers {
		var m Member
		var ok bool
		if m, i, ok = flatMember(b, i); !ok || repeated(out, m.Name) {
			return out, false
		}
		out = append(out, m)
		if i = skipSpace(b, i); i >= len(b) {
			return out, false
		}
		switch b[i] {
		case ',':
			i = skipSpace(b, i+1)
		case '}':
			return out, skipSpace(b, i+1) == len(b)
		default:
			return out, false
		}
	}
	return out, false
}

// flatMember reads `"name": value` with a plain value at i (past white
// space) and returns the position after it.
func flatMember(b []byte, i int) (m Member, next int, ok bool) {
	if i >= len(b) || b[i] != '"' {
		return m, i, false
	}
	if m.Name, i, ok = scanPlainString(b, i); !ok {
		return m, i, false
	}
	if i = skipSpace(b, i); i >= len(b) || b[i] != ':' {
		return m, i, false
	}
	if i = skipSpace(b, i+1); i >= len(b) {
		return m, i, false
	}
	switch b[i] {
	case '"':
		m.Kind = String
		m.Text, i, ok = scanPlainString(b, i)
	case 't':
		m.Kind = True
		i, ok = scanWord(b, i, "true")
	case 'f':
		m.Kind = False
		i, ok = scanWord(b, i, "false")
	case 'n':
		m.Kind = Null
		i, ok = scanWord(b, i, "null")
	case '{', '[':
		return m, i, false
	default:
		start := i
		i, ok = scanNumber(b, i)
		m.Kind, m.Text = Number, b[start:i]
	}
	return m, i, ok
}

// repeated reports whether name is already among ms.
func repeated(ms []Member, name []byte) bool {
	for _, m := range ms {
		if string(m.Name) == string(name) {
			return true
		}
	}
	return false
}
