package fabrictest

// Gomega matchers for Lakehouse (Delta) tables, and HaveRowsMatching for
// rows of any table (Delta or Kusto). The Delta matchers take what the
// Table helpers return: a *delta.Snapshot (Table.Snapshot, or TrySnapshot
// inside Eventually) or the Table itself, which they read when they match.
// On failure they print what they found: version, schema, commits and rows.

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/big"
	"reflect"
	"strings"
	"time"

	"github.com/onsi/gomega/types"
)

// ------------------------------------------------------------------ row values

// sameValue compares an expected value with an actual one by meaning (see
// HaveRowsMatching).
func sameValue(want, got any) (bool, error) {
	if m, ok := want.(types.GomegaMatcher); ok {
		ok, err := m.Match(got)
		if err != nil {
			return false, nil // a matcher that cannot take this value does not match it
		}
		return ok, nil
	}
	if want == nil || got == nil {
		return isNil(want) && isNil(got), nil
	}
	if raw, ok := want.(json.RawMessage); ok {
		var v any
		if err := unmarshalNumber(raw, &v); err != nil {
			return false, fmt.Errorf("json.RawMessage %s: %w", snippet(raw), err)
		}
		want = v
	}
	if raw, ok := got.(json.RawMessage); ok {
		var v any
		if unmarshalNumber(raw, &v) == nil {
			got = v
		}
	}
	if wn, ok := number(want); ok {
		gn, ok := number(got)
		return ok && wn.Cmp(gn) == 0, nil
	}
	if wt, ok := instant(want); ok {
		gt, ok := instant(got)
		return ok && wt.Equal(gt), nil
	}
	if ws, ok := want.(string); ok {
		gs, ok := got.(string)
		return ok && ws == gs, nil
	}
	if wb, ok := want.(bool); ok {
		gb, ok := got.(bool)
		return ok && wb == gb, nil
	}
	wv, gv := normalize(want), normalize(got)
	switch w := wv.(type) {
	case map[string]any:
		g, ok := gv.(map[string]any)
		if !ok {
			return false, nil
		}
		return rowMatches(w, g)
	case []any:
		g, ok := gv.([]any)
		if !ok || len(g) != len(w) {
			return false, nil
		}
		for i := range w {
			if same, err := sameValue(w[i], g[i]); err != nil || !same {
				return false, err
			}
		}
		return true, nil
	}
	return reflect.DeepEqual(wv, gv), nil
}

func isNil(v any) bool {
	if v == nil {
		return true
	}
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Map, reflect.Slice, reflect.Pointer, reflect.Interface:
		return rv.IsNil()
	}
	return false
}

// number returns v as an exact rational when it is a number.
func number(v any) (*big.Rat, bool) {
	if x, ok := v.(json.Number); ok {
		return new(big.Rat).SetString(string(x))
	}
	rv := reflect.ValueOf(v)
	switch {
	case rv.CanInt():
		return new(big.Rat).SetInt64(rv.Int()), true
	case rv.CanUint():
		return new(big.Rat).SetUint64(rv.Uint()), true
	case rv.CanFloat():
		return floatRat(rv.Float())
	}
	return nil, false
}

func floatRat(f float64) (*big.Rat, bool) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return nil, false
	}
	return new(big.Rat).SetFloat64(f), true
}

// instant returns v as a time when it is a time.Time or RFC 3339 text.
func instant(v any) (time.Time, bool) {
	switch x := v.(type) {
	case time.Time:
		return x, true
	case *time.Time:
		if x != nil {
			return *x, true
		}
	case string:
		if t, err := time.Parse(time.RFC3339Nano, x); err == nil {
			return t, true
		}
	}
	return time.Time{}, false
}

// normalize turns maps, slices and structs into JSON-shaped values (numbers
// as json.Number) so that they compare with what readers return.
func normalize(v any) any {
	switch x := v.(type) {
	case map[string]any, []any:
		return x
	case Rows:
		out := make([]any, len(x))
		for i, r := range x {
			out[i] = r
		}
		return out
	}
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Map, reflect.Slice, reflect.Array, reflect.Struct, reflect.Pointer:
		b, err := json.Marshal(v)
		if err != nil {
			return v
		}
		var out any
		if unmarshalNumber(b, &out) != nil {
			return v
		}
		return out
	}
	return v
}

func unmarshalNumber(b []byte, v any) error {
	dec := json.NewDecoder(strings.NewReader(string(b)))
	dec.UseNumber()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if dec.More() {
		return errors.New("trailing data after the JSON value")
	}
	return nil
}
