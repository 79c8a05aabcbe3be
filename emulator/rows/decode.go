package rows

import "encoding/json"

// maxPlainDepth bounds the nesting decodePlain follows; deeper objects
// take go-json's way.
const maxPlainDepth = 256

// decodePlain decodes one JSON object whose strings hold no escapes and
// whose text is valid UTF-8, the usual event, in one pass: objects as
// map[string]any, arrays as []any, numbers as json.Number with their text.
// It gives up (ok false) on anything else (an escape, invalid UTF-8, a
// repeated member name, invalid JSON, trailing data), and decodeObject
// decodes the value with go-json instead, so the rows are the same either
// way.
func decodePlain(b []byte) (Row, bool) {
	d := plainDecoder{b: b}
	d.space()
	if d.i >= len(d.b) || d.b[d.i] != '{' {
		return nil, false
	}
	obj, ok := d.object(0)
	if !ok {
		return nil, false
	}
	d.space()
	return Row(obj), d.i == len(d.b)
}

// plainDecoder walks the text of decodePlain.
type plainDecoder struct {
	b []byte
	i int
}

// space moves past JSON white space.
func (d *plainDecoder) space() { d.i = skipSpace(d.b, d.i) }

// next skips white space and returns the byte there (0 at the end).
func (d *plainDecoder) next() byte {
	d.space()
	if d.i >= len(d.b) {
		return 0
	}
	return d.b[d.i]
}

func (d *plainDecoder) value(depth int) (any, bool) {
	if depth > maxPlainDepth {
		return nil, false
	}
	switch d.next() {
	case '"':
		return d.str()
	case '{':
		return d.object(depth + 1)
	case '[':
		return d.array(depth + 1)
	case 't':
		return true, d.word("true")
	case 'f':
		return false, d.word("false")
	case 'n':
		return nil, d.word("null")
	}
	return d.number()
}

func (d *plainDecoder) object(depth int) (map[string]any, bool) {
	d.i++ // {
	obj := map[string]any{}
	if d.next() == '}' {
		d.i++
		return obj, true
	}
	for {
		if d.next() != '"' {
			return nil, false
		}
		k, ok := d.str()
		if !ok || d.next() != ':' {
			return nil, false
		}
		d.i++
		v, ok := d.value(depth)
		if _, dup := obj[k]; !ok || dup {
			return nil, false
		}
		obj[k] = v
		switch d.next() {
		case ',':
			d.i++
		case '}':
			d.i++
			return obj, true
		default:
			return nil, false
		}
	}
}

func (d *plainDecoder) array(depth int) ([]any, bool) {
	d.i++ // [
	arr := []any{}
	if d.next() == ']' {
		d.i++
		return arr, true
	}
	for {
		v, ok := d.value(depth)
		if !ok {
			return nil, false
		}
		arr = append(arr, v)
		switch d.next() {
		case ',':
			d.i++
		case ']':
			d.i++
			return arr, true
		default:
			return nil, false
		}
	}
}

// word moves past w (true, false or null) when it is next.
func (d *plainDecoder) word(w string) (ok bool) {
	d.i, ok = scanWord(d.b, d.i, w)
	return ok
}

// str reads a string without escapes or control characters.
func (d *plainDecoder) str() (string, bool) {
	start := d.i + 1
	if !d.strEnd() {
		return "", false
	}
	return string(d.b[start : d.i-1]), true
}

// strEnd moves past a string without escapes or control characters whose
// text is valid UTF-8.
func (d *plainDecoder) strEnd() bool {
	_, next, ok := scanPlainString(d.b, d.i)
	d.i = next
	return ok
}

// number reads -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)? as its text.
func (d *plainDecoder) number() (any, bool) {
	start := d.i
	if !d.numberEnd() {
		return nil, false
	}
	return json.Number(d.b[start:d.i]), true
}

// numberEnd moves past a number literal.
func (d *plainDecoder) numberEnd() (ok bool) {
	d.i, ok = scanNumber(d.b, d.i)
	return ok
}
