package eventbody

import (
	"bytes"
	"encoding/json"
	"unicode/utf8"

	"github.com/fabrictest/fabrictest/emulator/rows"
)

// fastEvents reads a produce body of the plain form {"events": [{…}, …]}
// in one pass, without reflection: each member's value is validated and
// kept as the body's own bytes. It gives up (ok false) on anything it does
// not read exactly as the strict decoder would (names in other cases or
// with escapes, repeated or unknown members, invalid JSON, escaped base64
// text, non-UTF-8 text, trailing data…); Parse then decodes the body
// the strict way, which also words the error. A large body is read in two
// halves at once. The events are read into bufs' memory.
func fastEvents(body []byte, bufs *eventBufs) (events []eventIn, ok bool) {
	return fastEventsSplit(body, splitEventsBytes, bufs)
}

// splitEventsBytes is the smallest body fastEvents reads in two halves.
const splitEventsBytes = 32 << 10

// fastEventsSplit is fastEvents, in two halves from minSplit bytes on.
func fastEventsSplit(body []byte, minSplit int, bufs *eventBufs) (events []eventIn, ok bool) {
	s := scanner{b: body}
	if !s.lit('{') || !s.name("events") || !s.lit(':') || !s.lit('[') {
		return nil, false
	}
	read := listClosed
	if !s.lit(']') {
		events, read = s.eventsHalved(bufs, minSplit)
		if read == listSplitMissed { // the guess was not between events
			return fastEventsSplit(body, len(body)+1, bufs)
		}
	}
	if read != listClosed || !s.lit('}') {
		return nil, false
	}
	s.space()
	return events, s.i == len(s.b)
}

// How an event list was read.
const (
	listFailed      = iota // not as the strict decoder reads it
	listClosed             // up to and with its closing bracket
	listAtStop             // up to the comma at the stop asked for
	listSplitMissed        // past the stop: it was not between two events
)

// eventsHalved reads the events of a list that is not empty; from
// minSplit bytes on, the second half on a goroutine of its own, from a
// comma between events near the middle of the body; into bufs, which keep
// what they grew to.
func (s *scanner) eventsHalved(bufs *eventBufs, minSplit int) ([]eventIn, int) {
	split := -1
	if len(s.b) >= minSplit {
		split = eventComma(s.b, s.i+(len(s.b)-s.i)/2)
	}
	if split < 0 {
		events, read := s.events(room(bufs.first, len(s.b)/128+1), -1)
		bufs.first = events
		return events, read
	}
	type half struct {
		read int
		end  int
	}
	second := make(chan half, 1)
	go func(b []byte) {
		t := scanner{b: b, i: split + 1}
		var read int
		bufs.second, read = t.events(room(bufs.second, (len(b)-split)/128+1), -1)
		second <- half{read, t.i}
	}(s.b)
	events, read := s.events(room(bufs.first, len(s.b)/128+1), split)
	h := <-second
	if read == listAtStop {
		s.i, read = h.end, h.read
		events = append(events, bufs.second...)
	}
	bufs.first = events
	return events, read
}

// room returns buf emptied, or a new slice when buf cannot hold n events
// (about one per 128 bytes of body) without growing.
func room(buf []eventIn, n int) []eventIn {
	if cap(buf) < n {
		return make([]eventIn, 0, n)
	}
	return buf[:0]
}

// eventComma returns the index of the first comma from from on that
// stands between a '}' and a '{' ("},{"), or -1.
func eventComma(b []byte, from int) int {
	if i := bytes.Index(b[from:], []byte("},{")); i >= 0 {
		return from + i + 1
	}
	return -1
}

// events reads events, comma-separated, up to the list's closing bracket,
// or up to the comma at stop (stop >= 0).
func (s *scanner) events(events []eventIn, stop int) ([]eventIn, int) {
	for {
		ev, ok := s.event()
		if !ok {
			return events, listFailed
		}
		events = append(events, ev)
		s.space()
		switch {
		case stop >= 0 && s.i == stop:
			return events, listAtStop
		case stop >= 0 && s.i > stop:
			return events, listSplitMissed
		case s.lit(']'):
			return events, listClosed
		case !s.lit(','):
			return events, listFailed
		}
	}
}

// scanner walks a JSON text. While it reads a value, it notes what the
// produce route would otherwise find out by reading the value again.
type scanner struct {
	b []byte
	i int
	// spaced is set on white space between tokens (the value is not compact).
	spaced bool
	// levels is the deepest nesting of objects and arrays (1: the value itself).
	levels int
	// oddName is set on a member name that is not plain printable ASCII
	// with a character other than a space.
	oddName bool
}

func (s *scanner) space() {
	b, i := s.b, s.i
	if i < len(b) && b[i] > ' ' {
		return // the common case: no white space
	}
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	s.spaced = s.spaced || i > s.i
	s.i = i
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
	return ok && string(got) == want
}

// plainName reads a member name without escapes.
func (s *scanner) plainName() ([]byte, bool) {
	s.space()
	start := s.i
	if !s.str() {
		return nil, false
	}
	text := s.b[start+1 : s.i-1]
	for _, c := range text {
		if c == '\\' {
			return nil, false
		}
	}
	return text, true
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
		s.spaced, s.levels, s.oddName = false, 0, false
		if !s.value(0) {
			return ev, false
		}
		raw := json.RawMessage(s.b[start:s.i])
		if !ev.set(name, raw, &seen) {
			return ev, false
		}
		if string(name) == "value" {
			ev.valueCompact = !s.spaced
			ev.valueFitsRow = raw[0] == '{' && s.levels <= rows.MaxDepth && !s.oddName
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
func (ev *eventIn) set(name []byte, raw json.RawMessage, seen *[6]bool) bool {
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
func memberIndex(name []byte) int {
	switch string(name) { // no copy: the compiler compares the bytes
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

// plainPrintable tells whether a member name's text is printable ASCII
// without escapes and not all spaces: such a name passes rows.CheckName.
func plainPrintable(name []byte) bool {
	blank := true
	for _, c := range name {
		if c < 0x20 || c >= 0x7f || c == '\\' {
			return false
		}
		blank = blank && c == ' '
	}
	return !blank
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
	s.levels = max(s.levels, depth+1)
	if s.lit('}') {
		return true
	}
	for {
		s.space()
		start := s.i
		if !s.str() {
			return false
		}
		s.oddName = s.oddName || !plainPrintable(s.b[start+1:s.i-1])
		if !s.lit(':') {
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
	s.levels = max(s.levels, depth+1)
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
		s.i = plainRun(s.b, s.i)
		if s.i == len(s.b) {
			break
		}
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

// plainRun returns the index of the first byte from i on that str must
// look at (len(b) if none), in a tight loop over local variables.
func plainRun(b []byte, i int) int {
	for i < len(b) && !stringSpecial[b[i]] {
		i++
	}
	return i
}

// stringSpecial marks the bytes of a string's text that str must look at:
// the closing quote, a backslash, control characters and non-ASCII bytes.
var stringSpecial = func() (t [256]bool) {
	for c := range 256 {
		t[c] = c == '"' || c == '\\' || c < 0x20 || c >= 0x80
	}
	return t
}()

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
	b, i := s.b, s.i
	for i < len(b) && '0' <= b[i] && b[i] <= '9' {
		i++
	}
	n := i - s.i
	s.i = i
	return n
}
