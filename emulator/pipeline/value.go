package pipeline

import (
	"encoding/json"
	"errors"
	"io"
	"math"
	"math/big"
	"strconv"
	"strings"
	"time"

	"github.com/fabrictest/fabrictest/emulator/rows"
)

// ---- field paths ----

// lookup returns the value a field name reaches in row and whether it is
// present and not null. A name that is a top-level key of the row reaches
// that field, even when it contains dots; otherwise a dotted name walks
// nested objects ("device.id" is row["device"]["id"]). Arrays are not
// indexed.
func lookup(row map[string]any, name string) (any, bool) {
	segs, ok := resolve(row, name)
	if !ok {
		return nil, false
	}
	v := getPath(row, segs)
	return v, v != nil
}

// resolve returns the path segments a field name reaches in row, and
// whether the field is present (possibly null).
func resolve(row map[string]any, name string) ([]string, bool) {
	if _, ok := row[name]; ok {
		return []string{name}, true
	}
	if !strings.Contains(name, ".") {
		return nil, false
	}
	segs := strings.Split(name, ".")
	var cur any = row
	for _, s := range segs {
		m, ok := asMap(cur)
		if !ok {
			return nil, false
		}
		if cur, ok = m[s]; !ok {
			return nil, false
		}
	}
	return segs, true
}

func getPath(row map[string]any, segs []string) any {
	var cur any = row
	for _, s := range segs {
		m, _ := asMap(cur)
		cur = m[s]
	}
	return cur
}

func asMap(v any) (map[string]any, bool) {
	switch m := v.(type) {
	case map[string]any:
		return m, true
	case rows.Row:
		return m, true
	}
	return nil, false
}

// ---- numbers ----

// number is a numeric value: an exact int64 or a float64.
type number struct {
	isInt bool
	i     int64
	f     float64
}

func intNumber(i int64) number     { return number{isInt: true, i: i} }
func floatNumber(f float64) number { return number{f: f} }

// toNumber reads a numeric value: json.Number, Go integers and floats.
// Strings are not numbers. A json.Number that is an integer within int64 is
// exact; any other is a float64; values out of float64 range, NaN and
// infinities are not numbers.
func toNumber(v any) (number, bool) {
	switch x := v.(type) {
	case json.Number:
		return parseNumber(string(x))
	case float64:
		return finite(x)
	case float32:
		return finite(float64(x))
	case int:
		return intNumber(int64(x)), true
	case int8:
		return intNumber(int64(x)), true
	case int16:
		return intNumber(int64(x)), true
	case int32:
		return intNumber(int64(x)), true
	case int64:
		return intNumber(x), true
	case uint:
		return uintNumber(uint64(x))
	case uint8:
		return intNumber(int64(x)), true
	case uint16:
		return intNumber(int64(x)), true
	case uint32:
		return intNumber(int64(x)), true
	case uint64:
		return uintNumber(x)
	}
	return number{}, false
}

func uintNumber(u uint64) (number, bool) {
	if u <= math.MaxInt64 {
		return intNumber(int64(u)), true
	}
	return floatNumber(float64(u)), true
}

func finite(f float64) (number, bool) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return number{}, false
	}
	return floatNumber(f), true
}

func parseNumber(s string) (number, bool) {
	if i, err := strconv.ParseInt(s, 10, 64); err == nil {
		return intNumber(i), true
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return number{}, false
	}
	return finite(f)
}

func (n number) float() float64 {
	if n.isInt {
		return float64(n.i)
	}
	return n.f
}

// cmpNumber compares exactly, also an int64 against a float64.
func cmpNumber(a, b number) int {
	switch {
	case a.isInt && b.isInt:
		return cmpInt(a.i, b.i)
	case !a.isInt && !b.isInt:
		return cmpFloat(a.f, b.f)
	}
	return a.big().Cmp(b.big())
}

func (n number) big() *big.Float {
	if n.isInt {
		return new(big.Float).SetInt64(n.i)
	}
	return big.NewFloat(n.f)
}

func cmpInt(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// json renders the number as output: an integer, or a double that always
// shows a decimal point or an exponent so readers infer a floating type.
// Non-finite doubles have no JSON form and render as null.
func (n number) json() any {
	if n.isInt {
		return json.Number(strconv.FormatInt(n.i, 10))
	}
	return doubleValue(n.f)
}

func doubleValue(f float64) any {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return nil
	}
	s := strconv.FormatFloat(f, 'g', -1, 64)
	if !strings.ContainsAny(s, ".eE") {
		s += ".0"
	}
	return json.Number(s)
}

// encode and decodeNumber give a number an exact text form for snapshots:
// "i<int>" or "f<float>".
func (n number) encode() string {
	if n.isInt {
		return "i" + strconv.FormatInt(n.i, 10)
	}
	return "f" + strconv.FormatFloat(n.f, 'g', -1, 64)
}

func decodeNumber(s string) (number, bool) {
	if len(s) < 2 {
		return number{}, false
	}
	switch s[0] {
	case 'i':
		i, err := strconv.ParseInt(s[1:], 10, 64)
		return intNumber(i), err == nil
	case 'f':
		f, err := strconv.ParseFloat(s[1:], 64)
		return floatNumber(f), err == nil || math.IsInf(f, 0)
	}
	return number{}, false
}

// ---- times ----

// The event times a window accepts, kept well inside int64 nanoseconds.
var (
	minTime = time.Date(1700, 1, 1, 0, 0, 0, 0, time.UTC).UnixNano()
	maxTime = time.Date(2200, 1, 1, 0, 0, 0, 0, time.UTC).UnixNano()
)

// parseTimeString reads an RFC 3339 timestamp, with or without fractional
// seconds, as Unix nanoseconds.
func parseTimeString(s string) (int64, bool) {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return 0, false
	}
	return timeNanos(t)
}

func timeNanos(t time.Time) (int64, bool) {
	if t.IsZero() {
		return 0, false
	}
	if t.Before(time.Unix(0, minTime)) || !t.Before(time.Unix(0, maxTime)) {
		return 0, false
	}
	return t.UnixNano(), true
}

// eventTime reads a time value: an RFC 3339 string, or a number of
// milliseconds since the Unix epoch (fractions allowed).
func eventTime(v any) (int64, bool) {
	if s, ok := v.(string); ok {
		return parseTimeString(s)
	}
	n, ok := toNumber(v)
	if !ok {
		return 0, false
	}
	if n.isInt {
		if n.i < minTime/1e6 || n.i >= maxTime/1e6 {
			return 0, false
		}
		return n.i * 1e6, true
	}
	if n.f*1e6 < float64(minTime) || n.f*1e6 >= float64(maxTime) {
		return 0, false
	}
	whole, frac := math.Modf(n.f)
	return int64(whole)*1e6 + int64(math.Round(frac*1e6)), true
}

// formatTime renders Unix nanoseconds as an RFC 3339 UTC string, with
// fractional seconds only when there are any.
func formatTime(ns int64) string {
	return time.Unix(0, ns).UTC().Format(time.RFC3339Nano)
}

// ---- values ----

// normalize returns v with Go numbers turned into json.Number, recursively,
// so that a value survives a JSON round trip unchanged.
func normalize(v any) any {
	switch x := v.(type) {
	case nil, string, bool, json.Number:
		return x
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = normalize(e)
		}
		return out
	case rows.Row:
		return normalize(map[string]any(x))
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = normalize(e)
		}
		return out
	}
	if n, ok := toNumber(v); ok {
		return n.json()
	}
	if f, ok := v.(float64); ok { // NaN, ±Inf
		return doubleValue(f)
	}
	// Anything else (a caller's own type) keeps its JSON form.
	raw, err := json.Marshal(v)
	if err != nil {
		return nil
	}
	var back any
	if decodeJSON(raw, &back) != nil {
		return nil
	}
	return back
}

// canonical returns a text that is equal for values a GroupBy puts in the
// same group: numbers by numeric value (1, 1.0 and 1e0 alike), strings,
// booleans and null by value, objects and arrays by their JSON form.
func canonical(v any) string {
	switch x := v.(type) {
	case nil:
		return "n"
	case bool:
		if x {
			return "t"
		}
		return "f"
	case string:
		return "s" + x
	}
	if n, ok := toNumber(v); ok {
		if !n.isInt && n.f == math.Trunc(n.f) && math.Abs(n.f) < 1<<63 {
			n = intNumber(int64(n.f))
		}
		return "#" + n.encode()
	}
	raw, err := json.Marshal(normalize(v))
	if err != nil {
		return "?"
	}
	return "j" + string(raw)
}

// decodeJSON decodes one JSON document with numbers as json.Number.
func decodeJSON(data []byte, v any) error {
	dec := json.NewDecoder(strings.NewReader(string(data)))
	dec.UseNumber()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if _, err := dec.Token(); err != io.EOF {
		return errors.New("unexpected data after the JSON document")
	}
	return nil
}

// satAdd adds without overflowing int64.
func satAdd(a, b int64) int64 {
	s := a + b
	switch {
	case b > 0 && s < a:
		return math.MaxInt64
	case b < 0 && s > a:
		return math.MinInt64
	}
	return s
}
