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
	d := plainDecoder{b: value}
	if d.next() != '{' {
		return dst[:0], false
	}
	d.i++
	out := dst[:0]
	if d.next() == '}' {
		d.i++
		return out, d.end()
	}
	for len(out) < maxFlatMembers {
		m, ok := d.flatMember()
		if !ok || repeated(out, m.Name) {
			return out, false
		}
		out = append(out, m)
		switch d.next() {
		case ',':
			d.i++
		case '}':
			d.i++
			return out, d.end()
		default:
			return out, false
		}
	}
	return out, false
}

// flatMember reads `"name": value` with a plain value.
func (d *plainDecoder) flatMember() (Member, bool) {
	var m Member
	if d.next() != '"' {
		return m, false
	}
	name, ok := d.text()
	if !ok || d.next() != ':' {
		return m, false
	}
	d.i++
	m.Name = name
	switch d.next() {
	case '"':
		m.Kind = String
		m.Text, ok = d.text()
	case 't':
		m.Kind, ok = True, d.word("true")
	case 'f':
		m.Kind, ok = False, d.word("false")
	case 'n':
		m.Kind, ok = Null, d.word("null")
	case '{', '[':
		return m, false
	default:
		start := d.i
		ok = d.numberEnd()
		m.Kind, m.Text = Number, d.b[start:d.i]
	}
	return m, ok
}

// text reads a string as str does, returning its bytes without copying.
func (d *plainDecoder) text() ([]byte, bool) {
	start := d.i + 1
	if !d.strEnd() {
		return nil, false
	}
	return d.b[start : d.i-1], true
}

// end reports whether only white space is left.
func (d *plainDecoder) end() bool {
	d.space()
	return d.i == len(d.b)
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
