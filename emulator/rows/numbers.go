package rows

import (
	"encoding/json"
	"math"
	"math/big"
	"strconv"
	"strings"
)

// Int64 converts a row value losslessly to an int64: integers that fit int64, and
// numbers written with a fraction or exponent whose value is an integer
// that fits (2.0, 1e3).
func Int64(v any) (int64, bool) {
	switch x := v.(type) {
	case json.Number:
		s := string(x)
		if i, err := strconv.ParseInt(s, 10, 64); err == nil {
			return i, true
		}
		return exactInt64(s)
	case int:
		return int64(x), true
	case int8:
		return int64(x), true
	case int16:
		return int64(x), true
	case int32:
		return int64(x), true
	case int64:
		return x, true
	case uint8:
		return int64(x), true
	case uint16:
		return int64(x), true
	case uint32:
		return int64(x), true
	case uint:
		if uint64(x) > math.MaxInt64 {
			return 0, false
		}
		return int64(x), true
	case uint64:
		if x > math.MaxInt64 {
			return 0, false
		}
		return int64(x), true
	case float32:
		return floatToInt64(float64(x))
	case float64:
		return floatToInt64(x)
	default:
		return 0, false
	}
}

// floatToInt64 converts an integral float64 inside int64's range.
func floatToInt64(f float64) (int64, bool) {
	if f != math.Trunc(f) || f < -(1<<63) || f >= 1<<63 {
		return 0, false
	}
	return int64(f), true
}

// exactInt64 converts a decimal literal with a fraction or exponent to an
// int64 when its exact value is an integer in range.
func exactInt64(s string) (int64, bool) {
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || f != math.Trunc(f) || f < -(1<<63) || f > 1<<63 {
		return 0, false // big.Rat decides the edges: 2^63 may be rounded
	}
	// An exponent of more than three digits would make big.Rat allocate a
	// huge power of ten; no such literal is an int64 anyway.
	if i := strings.IndexAny(s, "eE"); i >= 0 {
		exp := strings.TrimLeft(s[i+1:], "+-")
		if len(strings.TrimLeft(exp, "0")) > 3 {
			return 0, false
		}
	}
	var r big.Rat
	if _, ok := r.SetString(s); !ok || !r.IsInt() || !r.Num().IsInt64() {
		return 0, false
	}
	return r.Num().Int64(), true
}
