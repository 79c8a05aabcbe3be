package api

import (
	"encoding/json"
	"unicode/utf8"
)

// fastEvents reads a produce body of the plain form {"events": [{…}, …]}
// in one pass, without reflection: each member's value is validated and
// kept as the body's own bytes. It gives up (ok false) on anything it does
// not read exactly as the strict decoder would (names in other cases or
// with escapes, repeated or unknown members, invalid JSON, escaped base64
// text, non-UTF-8 text, trailing data…); parseEvents then decodes the body
// the strict way, which also words the error.
func fastEvents(body []byte) (events []eventIn, ok bool) {
	s := scanner{b: body}
	if !s.lit('{') || !s.name("events") || !s.lit(':') || !s.lit('[') {
		return nil, false
	}
	events = make([]eventIn, 0, len(body)/128+1)
	if !s.lit(']') {
		for {
			ev, ok := s.event()
			if !ok {
				return nil, false
			}
			events = append(events, ev)
			if s.lit(']') {
				break
			}
			if !s.lit(',') {
				return nil, false
			}
		}
	}
	if !s.lit('}') {
		return nil, false
	}
	s.space()
	return events, s.i == len(s.b)
}

// scanner walks a JSON text.
type scanner struct {
	b []byte
	i int
}

func (s *scanner) space() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

// lit skips white space and then c, if c is next.
func (s *scanner) lit(c byte) bool {
	s.space()
	if s.i < len(s.b) && s.b[s.i] == c {
		s.i++
		return true
	}
	return false
}

// name reads the member name want (plain text, exact case).
func (s *scanner) name(want string) bool {
	got, ok := s.plainName()
	return ok && got == want
}

// plainName reads a member name without escapes.
func (s *scanner) plainName() (string, bool) {
	s.space()
	start := s.i
	if !s.str() {
		return "", false
	}
	text := s.b[start+1 : s.i-1]
	for _, c := range text {
		if c == '\\' {
			return "", false
		}
	}
	return string(text), true
}

// event reads one {"key"?, "value"?, …} object.
func (s *scanner) event() (eventIn, bool) {
	var ev eventIn
	if !s.lit('{') {
		return ev, false
	}
	if s.lit('}') {
		return ev, true
	}
	var seen [6]bool
	for {
		name, ok := s.plainName()
		if !ok || !s.lit(':') {
			return ev, false
		}
		s.space()
		start := s.i
		if !s.value(0) {
			return ev, false
		}
		raw := json.RawMessage(s.b[start:s.i])
		if !ev.set(name, raw, &seen) {
			return ev, false
		}
		if s.lit('}') {
			return ev, true
		}
		if !s.lit(',') {
			return ev, false
		}
	}
}

// set stores one member of an event; false for an unknown or repeated
// name, or a base64 member that is not plain text or null.
func (ev *eventIn) set(name string, raw json.RawMessage, seen *[6]bool) bool {
	n := memberIndex(name)
	if n < 0 || seen[n] {
		return false
	}
	seen[n] = true
	switch n {
	case 0:
		ev.Key = raw
	case 1:
		ev.Value = raw
	case 4:
		ev.Headers = raw
	case 5:
		ev.Timestamp = raw
	default:
		var p *string
		switch {
		case string(raw) == "null":
		case raw[0] == '"' && !containsByte(raw, '\\'):
			t := string(raw[1 : len(raw)-1])
			p = &t
		default:
			return false
		}
		if n == 2 {
			ev.KeyBase64 = p
		} else {
			ev.ValueBase64 = p
		}
	}
	return true
}

// memberIndex numbers the members of an event; -1 for any other name.
func memberIndex(name string) int {
	switch name {
	case "key":
		return 0
	case "value":
		return 1
	case "keyBase64":
		return 2
	case "valueBase64":
		return 3
	case "headers":
		return 4
	case "timestamp":
		return 5
	}
	return -1
}

func containsByte(b []byte, c byte) bool {
	for _, x := range b {
		if x == c {
			return true
		}
	}
	return false
}

// maxFastDepth bounds the nesting the scanner follows; deeper values go
// the strict way.
const maxFastDepth = 512

// value skips one valid JSON value.
func (s *scanner) value(depth int) bool {
	if depth > maxFastDepth || s.i >= len(s.b) {
		return false
	}
	switch c := s.b[s.i]; {
	case c == '"':
		return s.str()
	case c == '{':
		return s.object(depth)
	case c == '[':
		return s.array(depth)
	case c == 't':
		return s.word("true")
	case c == 'f':
		return s.word("false")
	case c == 'n':
		return s.word("null")
	default:
		return s.number()
	}
}

func (s *scanner) object(depth int) bool {
	s.i++ // {
	if s.lit('}') {
		return true
	}
	for {
		s.space()
		if !s.str() || !s.lit(':') {
			return false
		}
		s.space()
		if !s.value(depth + 1) {
			return false
		}
		if s.lit('}') {
			return true
		}
		if !s.lit(',') {
			return false
		}
	}
}

func (s *scanner) array(depth int) bool {
	s.i++ // [
	if s.lit(']') {
		return true
	}
	for {
		s.space()
		if !s.value(depth + 1) {
			return false
		}
		if s.lit(']') {
			return true
		}
		if !s.lit(',') {
			return false
		}
	}
}

func (s *scanner) word(w string) bool {
	if len(s.b)-s.i < len(w) || string(s.b[s.i:s.i+len(w)]) != w {
		return false
	}
	s.i += len(w)
	return true
}

// str skips a string: no control characters, valid escapes, valid UTF-8.
func (s *scanner) str() bool {
	if s.i >= len(s.b) || s.b[s.i] != '"' {
		return false
	}
	start := s.i + 1
	ascii := true
	for s.i++; s.i < len(s.b); s.i++ {
		switch c := s.b[s.i]; {
		case c == '"':
			s.i++
			return ascii || utf8.Valid(s.b[start:s.i-1])
		case c < 0x20:
			return false
		case c >= 0x80:
			ascii = false
		case c == '\\':
			if !s.escape() {
				return false
			}
		}
	}
	return false
}

// escape checks the escape at s.i and leaves s.i on its last byte.
func (s *scanner) escape() bool {
	if s.i+1 >= len(s.b) {
		return false
	}
	s.i++
	switch s.b[s.i] {
	case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
		return true
	case 'u':
		if s.i+4 >= len(s.b) {
			return false
		}
		for _, h := range s.b[s.i+1 : s.i+5] {
			if !('0' <= h && h <= '9' || 'a' <= h && h <= 'f' || 'A' <= h && h <= 'F') {
				return false
			}
		}
		s.i += 4
		return true
	}
	return false
}

// number skips -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?.
func (s *scanner) number() bool {
	if s.i < len(s.b) && s.b[s.i] == '-' {
		s.i++
	}
	switch {
	case s.i < len(s.b) && s.b[s.i] == '0':
		s.i++
	case s.digits() == 0:
		return false
	}
	if s.i < len(s.b) && s.b[s.i] == '.' {
		s.i++
		if s.digits() == 0 {
			return false
		}
	}
	if s.i < len(s.b) && (s.b[s.i] == 'e' || s.b[s.i] == 'E') {
		s.i++
		if s.i < len(s.b) && (s.b[s.i] == '+' || s.b[s.i] == '-') {
			s.i++
		}
		if s.digits() == 0 {
			return false
		}
	}
	return true
}

func (s *scanner) digits() int {
	n := 0
	for s.i < len(s.b) && '0' <= s.b[s.i] && s.b[s.i] <= '9' {
		s.i++
		n++
	}
	return n
}
