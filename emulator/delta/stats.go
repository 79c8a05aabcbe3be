package delta

import (
	"bytes"
	"encoding/json"
	"math"
	"strconv"
	"time"
	"unicode/utf8"
)

// maxStatsStringRunes bounds string statistics: a longer minimum is cut to
// this many characters (a prefix is still a lower bound), and a longer
// maximum is left out (a cut maximum would be too small).
const maxStatsStringRunes = 32

// columnStats accumulates the statistics of one field outside any array:
// the null count, and for long, double, string and timestamp the bounds.
type columnStats struct {
	kind     kind
	nulls    int64
	has      bool // a bound has been seen
	noBounds bool // a value without a JSON bound (NaN, ±Inf) was seen
	minI     int64
	maxI     int64
	minF     float64
	maxF     float64
	minS     string
	maxS     string
}

func (s *columnStats) int(v int64) {
	if !s.has {
		s.minI, s.maxI, s.has = v, v, true
		return
	}
	s.minI = min(s.minI, v)
	s.maxI = max(s.maxI, v)
}

func (s *columnStats) float(v float64) {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		s.noBounds = true
		return
	}
	if !s.has {
		s.minF, s.maxF, s.has = v, v, true
		return
	}
	s.minF = min(s.minF, v)
	s.maxF = max(s.maxF, v)
}

func (s *columnStats) str(v string) {
	if !s.has {
		s.minS, s.maxS, s.has = v, v, true
		return
	}
	if v < s.minS {
		s.minS = v
	}
	if v > s.maxS {
		s.maxS = v
	}
}

// appendBound appends the JSON of the minimum (or maximum) and reports
// whether the field has one.
func (s *columnStats) appendBound(b []byte, wantMin bool) ([]byte, bool) {
	if !s.has || s.noBounds {
		return b, false
	}
	switch s.kind {
	case kLong:
		return strconv.AppendInt(b, pick(wantMin, s.minI, s.maxI), 10), true
	case kDouble:
		return strconv.AppendFloat(b, pick(wantMin, s.minF, s.maxF), 'g', -1, 64), true
	case kTimestamp:
		// Delta stores timestamp bounds in milliseconds: the minimum is
		// truncated down and the maximum rounded up, so both stay bounds.
		micros := pick(wantMin, s.minI, s.maxI)
		ms := floorDiv(micros, 1000)
		if !wantMin && micros%1000 != 0 {
			ms++
		}
		t := time.UnixMilli(ms).UTC()
		return strconv.AppendQuote(b, t.Format("2006-01-02T15:04:05.000Z")), true
	case kString:
		v := pick(wantMin, s.minS, s.maxS)
		if utf8.RuneCountInString(v) > maxStatsStringRunes {
			if !wantMin {
				return b, false
			}
			v = truncateRunes(v, maxStatsStringRunes)
		}
		return appendJSONString(b, v), true
	default:
		return b, false
	}
}

func pick[T any](first bool, a, b T) T {
	if first {
		return a
	}
	return b
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && (a < 0) != (b < 0) {
		q--
	}
	return q
}

// truncateRunes returns the first n characters of s.
func truncateRunes(s string, n int) string {
	for i := range s {
		if n == 0 {
			return s[:i]
		}
		n--
	}
	return s
}

// appendJSONString appends s as a JSON string without HTML escaping.
func appendJSONString(b []byte, s string) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s) // a string always encodes
	return append(b, bytes.TrimSuffix(buf.Bytes(), []byte("\n"))...)
}

// statsJSON renders the add action's stats: numRecords, and the minValues,
// maxValues and nullCount of every field outside an array, nested like the
// schema. Arrays get a null count (null arrays), no bounds; booleans get a
// null count only.
func (p *plan) statsJSON(numRecords int64) string {
	b := []byte(`{"numRecords":`)
	b = strconv.AppendInt(b, numRecords, 10)
	b = append(b, `,"minValues":`...)
	b, _ = appendBounds(b, p.root.children, true)
	b = append(b, `,"maxValues":`...)
	b, _ = appendBounds(b, p.root.children, false)
	b = append(b, `,"nullCount":`...)
	b = appendNullCounts(b, p.root.children)
	b = append(b, '}')
	return string(b)
}

// appendBounds appends an object of the minimum (or maximum) of every member
// that has one (members in Parquet order: key order does not matter to
// readers), and reports whether any has.
func appendBounds(b []byte, cols []*column, wantMin bool) ([]byte, bool) {
	b = append(b, '{')
	some := false
	for _, c := range cols {
		mark := len(b)
		if some {
			b = append(b, ',')
		}
		b = appendJSONString(b, c.name)
		b = append(b, ':')
		var ok bool
		switch c.kind {
		case kStruct:
			b, ok = appendBounds(b, c.children, wantMin)
		case kArray, kBoolean:
		default:
			b, ok = c.stats.appendBound(b, wantMin)
		}
		if !ok {
			b = b[:mark]
			continue
		}
		some = true
	}
	return append(b, '}'), some
}

// appendNullCounts appends an object of the null count of every member.
func appendNullCounts(b []byte, cols []*column) []byte {
	b = append(b, '{')
	for i, c := range cols {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendJSONString(b, c.name)
		b = append(b, ':')
		if c.kind == kStruct {
			b = appendNullCounts(b, c.children)
		} else {
			b = strconv.AppendInt(b, c.stats.nulls, 10)
		}
	}
	return append(b, '}')
}
