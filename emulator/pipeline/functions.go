package pipeline

import (
	"math"
	"math/big"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/fabrictest/fabrictest/emulator/rows"
)

// Compute is a computed field of a ManageFields: the output field As gets
// Fn applied to Args. It is Fabric's ManageFields column of type
// FunctionCall ({functionName, arguments}, alias as As).
type Compute struct {
	Fn   ScalarFunc
	Args []Arg
	As   string // a plain top-level name
}

// Arg is one argument of a Compute: the value of the input row's field
// Field (a missing field is null) or, when Field is empty, the literal
// Value (a string, a number, a boolean or nil).
type Arg struct {
	Field string
	Value any
}

// ScalarFunc names a function a Compute applies. Fabric's ManageFields
// functions are Azure Stream Analytics' built-in scalar functions (each ASA
// reference page is marked "Azure Stream Analytics ✅ Fabric Eventstream");
// the emulator builds its string functions and its mathematical functions
// but EXP, and follows these ASA reference pages
// (learn.microsoft.com/stream-analytics-query/<name>-azure-stream-analytics):
//
//   - Concat(s1, s2, ...s): the strings joined; null arguments count as
//     empty strings, so all-null gives "" (concat page).
//   - CharIndex(find, search [, start]): the 1-based position (a long) of
//     the first find in search at or after start, 0 when there is none; a
//     start left out, 0 or negative searches from the beginning (charindex
//     page). An empty find gives 0, as in T-SQL (not documented for ASA).
//   - Len(s): the number of characters, trailing blanks (U+0020) excluded
//     (len page).
//   - Lower(s), Upper(s): Unicode case mapping.
//   - Substring(s, start, length): 1-based; the characters at positions
//     start … start+length−1 that exist, so a start below 1 returns
//     max(start+length−1, 0) characters and a start past the end returns "";
//     a negative length is an error in ASA, here a null counted as a
//     failure (substring page).
//   - Replace(s, pattern, replacement): every occurrence replaced; an empty
//     pattern returns s (replace page).
//   - Trim(s), LTrim(s), RTrim(s): remove white space — .NET's
//     Char.IsWhiteSpace set, which is Unicode's White_Space (trim page) —
//     from both ends, the start or the end.
//   - Abs(x), Ceiling(x), Floor(x), Sign(x): the same type as x — a long
//     for an integer, a double otherwise (abs, ceiling, floor, sign pages);
//     Sign gives −1, 0 or 1.
//   - Round(x, n): x rounded to n decimal places (n < 0 rounds left of the
//     point), halves away from zero, a long for an integer x and a double
//     otherwise; a double is rounded as its shortest decimal text, so
//     Round(123.9995, 3) is 124.0 as the round page shows.
//   - Power(x, y), Sqrt(x), Square(x): doubles (power, sqrt, square pages);
//     Sqrt of a negative number is a failure.
//
// Positions and lengths count Unicode code points (ASA runs on .NET, which
// may count a character outside the Basic Multilingual Plane as two; not
// verified). String search and Replace are case-sensitive (ordinal).
//
// Nulls: a null or missing argument makes the result null (Concat aside),
// as every page that says so does (replace: "Returns NULL if any of the
// arguments are NULL"). Types are not converted implicitly: a string
// argument must be a string and a numeric one a number (an integer where ASA
// says bigint: a double with a fraction there is refused). A literal of the
// wrong type is a *ValidationError at Parse; a field value of the wrong type,
// an overflow or a value out of the function's domain makes the result null,
// counted in Stats.FunctionFailures (ASA would fail the query; the emulator
// keeps the row, as a failed cast does). A NaN or infinite result is a
// failure too, and so is a string result longer than rows.MaxEventBytes
// (a Replace or Concat that would make one event larger than an event may
// be), refused before it is allocated.
type ScalarFunc string

// The functions built.
const (
	FnConcat    ScalarFunc = "concat"
	FnCharIndex ScalarFunc = "charindex"
	FnLen       ScalarFunc = "len"
	FnLower     ScalarFunc = "lower"
	FnUpper     ScalarFunc = "upper"
	FnSubstring ScalarFunc = "substring"
	FnReplace   ScalarFunc = "replace"
	FnTrim      ScalarFunc = "trim"
	FnLTrim     ScalarFunc = "ltrim"
	FnRTrim     ScalarFunc = "rtrim"
	FnAbs       ScalarFunc = "abs"
	FnCeiling   ScalarFunc = "ceiling"
	FnFloor     ScalarFunc = "floor"
	FnRound     ScalarFunc = "round"
	FnPower     ScalarFunc = "power"
	FnSqrt      ScalarFunc = "sqrt"
	FnSquare    ScalarFunc = "square"
	FnSign      ScalarFunc = "sign"
)

type argKind int

const (
	kString  argKind = iota
	kNumber          // a long or a double
	kInteger         // a long (or a double without a fraction)
)

func (k argKind) String() string {
	switch k {
	case kString:
		return "a string"
	case kNumber:
		return "a number"
	}
	return "an integer"
}

type funcSig struct {
	name     string    // Fabric's spelling
	params   []argKind // in order
	optional int       // trailing params that may be left out
	variadic bool      // the last param repeats
}

func (s funcSig) kind(i int) argKind {
	if i >= len(s.params) {
		return s.params[len(s.params)-1]
	}
	return s.params[i]
}

var (
	str1 = []argKind{kString}
	num1 = []argKind{kNumber}
)

var scalarFuncs = map[ScalarFunc]funcSig{
	FnConcat:    {name: "Concat", params: []argKind{kString, kString}, variadic: true},
	FnCharIndex: {name: "CharIndex", params: []argKind{kString, kString, kInteger}, optional: 1},
	FnLen:       {name: "Len", params: str1},
	FnLower:     {name: "Lower", params: str1},
	FnUpper:     {name: "Upper", params: str1},
	FnSubstring: {name: "Substring", params: []argKind{kString, kInteger, kInteger}},
	FnReplace:   {name: "Replace", params: []argKind{kString, kString, kString}},
	FnTrim:      {name: "Trim", params: str1},
	FnLTrim:     {name: "LTrim", params: str1},
	FnRTrim:     {name: "RTrim", params: str1},
	FnAbs:       {name: "Abs", params: num1},
	FnCeiling:   {name: "Ceiling", params: num1},
	FnFloor:     {name: "Floor", params: num1},
	FnRound:     {name: "Round", params: []argKind{kNumber, kInteger}},
	FnPower:     {name: "Power", params: []argKind{kNumber, kNumber}},
	FnSqrt:      {name: "Sqrt", params: num1},
	FnSquare:    {name: "Square", params: num1},
	FnSign:      {name: "Sign", params: num1},
}

const builtFuncs = "Concat, CharIndex, Len, Lower, Upper, Substring, Replace, Trim, LTrim, RTrim, Abs, Ceiling, Floor, Round, Power, Sqrt, Square and Sign"

func refuseFunc(path, fn string) error {
	return notSupported(path, fn, "ManageFields computes only "+builtFuncs)
}

// parseCompute reads "compute": [{fn, args: [{field} | {literal}], as}].
func parseCompute(o obj) ([]Compute, error) {
	raw, ok := o.m["compute"]
	if !ok || raw == nil {
		return nil, nil
	}
	base := join(o.path, "compute")
	list, ok := raw.([]any)
	if !ok {
		return nil, invalid(base, "want an array of {fn, args, as}, got %s", jsonKind(raw))
	}
	out := make([]Compute, 0, len(list))
	for i, item := range list {
		p := index(base, i)
		m, ok := item.(map[string]any)
		if !ok {
			return nil, invalid(p, "want an object {fn, args, as}")
		}
		co := obj{m: m, path: p}
		if err := co.only("fn", "args", "as"); err != nil {
			return nil, err
		}
		fn, err := co.str("fn", true)
		if err != nil {
			return nil, err
		}
		f := ScalarFunc(strings.ToLower(fn))
		if _, ok := scalarFuncs[f]; !ok {
			return nil, refuseFunc(join(p, "fn"), fn)
		}
		as, err := co.str("as", true)
		if err != nil {
			return nil, err
		}
		c := Compute{Fn: f, As: as}
		rawArgs, ok := m["args"].([]any)
		if !ok {
			return nil, invalid(join(p, "args"), "want an array of {field} or {literal}")
		}
		for j, a := range rawArgs {
			ap := index(join(p, "args"), j)
			am, ok := a.(map[string]any)
			if !ok {
				return nil, invalid(ap, "want {\"field\": name} or {\"literal\": value}")
			}
			ao := obj{m: am, path: ap}
			if err := ao.only("field", "literal"); err != nil {
				return nil, err
			}
			_, hasField := am["field"]
			lit, hasLit := am["literal"]
			if hasField == hasLit {
				return nil, invalid(ap, "want exactly one of field, literal")
			}
			if hasLit {
				c.Args = append(c.Args, Arg{Value: lit})
				continue
			}
			field, err := ao.str("field", true)
			if err != nil {
				return nil, err
			}
			c.Args = append(c.Args, Arg{Field: field})
		}
		out = append(out, c)
	}
	return out, nil
}

// validateCompute checks the computed fields; renamed maps rename targets
// to their sources.
func (m ManageFields) validateCompute(path string, renamed map[string]string) error {
	outs := map[string]bool{}
	for i, c := range m.Compute {
		p := index(join(path, "compute"), i)
		sig, ok := scalarFuncs[c.Fn]
		switch {
		case c.Fn == "":
			return invalid(join(p, "fn"), "required: one of %s", builtFuncs)
		case !ok:
			return refuseFunc(join(p, "fn"), string(c.Fn))
		}
		switch {
		case c.As == "":
			return invalid(join(p, "as"), "required: the name of the computed field")
		case outs[c.As]:
			return invalid(join(p, "as"), "%q is the output of another computed field", c.As)
		case renamed[c.As] != "":
			return invalid(join(p, "as"), "%q is also the new name of %q", c.As, renamed[c.As])
		}
		outs[c.As] = true
		n, most := len(c.Args), len(sig.params)
		least := most - sig.optional
		switch {
		case sig.variadic && n < least:
			return invalid(join(p, "args"), "%s takes at least %d arguments, got %d", sig.name, least, n)
		case !sig.variadic && (n < least || n > most) && least == most:
			return invalid(join(p, "args"), "%s takes %d argument(s), got %d", sig.name, most, n)
		case !sig.variadic && (n < least || n > most):
			return invalid(join(p, "args"), "%s takes %d to %d arguments, got %d", sig.name, least, most, n)
		}
		for j, a := range c.Args {
			ap := index(join(p, "args"), j)
			if a.Field != "" || a.Value == nil {
				continue
			}
			if _, ok := argValue(a.Value, sig.kind(j)); !ok {
				return invalid(join(ap, "literal"), "%s wants %v here, got %s", sig.name, sig.kind(j), jsonKind(normalize(a.Value)))
			}
		}
	}
	return nil
}

func (c Compute) spec() ComputeSpec {
	s := ComputeSpec{Fn: string(c.Fn), As: c.As, Args: make([]map[string]any, len(c.Args))}
	for i, a := range c.Args {
		if a.Field != "" {
			s.Args[i] = map[string]any{"field": a.Field}
		} else {
			s.Args[i] = map[string]any{"literal": normalize(a.Value)}
		}
	}
	return s
}

// eval computes the field's value from the input row; ok is false when an
// argument had the wrong type or a value out of the function's domain (the
// value is then nil).
func (c Compute) eval(row map[string]any) (any, bool) {
	vals := make([]any, len(c.Args))
	for i, a := range c.Args {
		if a.Field == "" {
			vals[i] = a.Value
		} else {
			vals[i], _ = lookup(row, a.Field)
		}
	}
	return callScalar(c.Fn, vals)
}

// arg is a typed argument value.
type arg struct {
	s string
	n number
}

// argValue reads v as kind k.
func argValue(v any, k argKind) (arg, bool) {
	switch k {
	case kString:
		s, ok := v.(string)
		return arg{s: s}, ok
	case kNumber:
		n, ok := toNumber(v)
		return arg{n: n}, ok
	}
	n, ok := toNumber(v)
	if !ok {
		return arg{}, false
	}
	if !n.isInt {
		if n.f != math.Trunc(n.f) || math.Abs(n.f) >= 1<<63 {
			return arg{}, false
		}
		n = intNumber(int64(n.f))
	}
	return arg{n: n}, true
}

func callScalar(fn ScalarFunc, vals []any) (any, bool) {
	sig, ok := scalarFuncs[fn]
	if !ok {
		return nil, false
	}
	if fn == FnConcat {
		return concat(vals)
	}
	args := make([]arg, len(vals))
	for _, v := range vals {
		if v == nil {
			return nil, true
		}
	}
	for i, v := range vals {
		a, ok := argValue(v, sig.kind(i))
		if !ok {
			return nil, false
		}
		args[i] = a
	}
	switch fn {
	case FnCharIndex:
		var start int64
		if len(args) == 3 {
			start = args[2].n.i
		}
		return long(charIndex(args[0].s, args[1].s, start)), true
	case FnLen:
		return long(int64(utf8.RuneCountInString(strings.TrimRight(args[0].s, " ")))), true
	case FnLower:
		return bounded(strings.ToLower(args[0].s))
	case FnUpper:
		return bounded(strings.ToUpper(args[0].s))
	case FnSubstring:
		return substring(args[0].s, args[1].n.i, args[2].n.i)
	case FnReplace:
		return replace(args[0].s, args[1].s, args[2].s)
	case FnTrim:
		return strings.TrimFunc(args[0].s, unicode.IsSpace), true
	case FnLTrim:
		return strings.TrimLeftFunc(args[0].s, unicode.IsSpace), true
	case FnRTrim:
		return strings.TrimRightFunc(args[0].s, unicode.IsSpace), true
	}
	return callNumeric(fn, args)
}

// callNumeric is callScalar for the numeric functions, given their
// converted, non-null arguments.
func callNumeric(fn ScalarFunc, args []arg) (any, bool) {
	x := args[0].n
	switch fn {
	case FnAbs:
		if x.isInt {
			if x.i == math.MinInt64 {
				return nil, false
			}
			return long(max(x.i, -x.i)), true
		}
		return double(math.Abs(x.f))
	case FnCeiling:
		if x.isInt {
			return long(x.i), true
		}
		return double(math.Ceil(x.f))
	case FnFloor:
		if x.isInt {
			return long(x.i), true
		}
		return double(math.Floor(x.f))
	case FnSign:
		if x.isInt {
			return long(int64(cmpInt(x.i, 0))), true
		}
		return double(float64(cmpFloat(x.f, 0)))
	case FnRound:
		return round(x, args[1].n.i)
	case FnPower:
		return double(math.Pow(x.float(), args[1].n.float()))
	case FnSqrt:
		if x.float() < 0 {
			return nil, false
		}
		return double(math.Sqrt(x.float()))
	case FnSquare:
		return double(x.float() * x.float())
	}
	return nil, false
}

func long(i int64) any { return intNumber(i).json() }

// double renders a double result; NaN and infinities are failures, and a
// negative zero is zero.
func double(f float64) (any, bool) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return nil, false
	}
	return doubleValue(f + 0), true
}

// concat joins string arguments, nulls as empty strings; a result larger
// than rows.MaxEventBytes is a failure, found before it is built.
func concat(vals []any) (any, bool) {
	size := 0
	for _, v := range vals {
		if v == nil {
			continue
		}
		s, ok := v.(string)
		if !ok {
			return nil, false
		}
		size += len(s)
		if size > rows.MaxEventBytes {
			return nil, false
		}
	}
	var b strings.Builder
	b.Grow(size)
	for _, v := range vals {
		if s, ok := v.(string); ok {
			b.WriteString(s)
		}
	}
	return b.String(), true
}

// replace replaces every old in s with repl (an empty old returns s); a
// result larger than rows.MaxEventBytes is a failure, found by counting the
// occurrences before anything is allocated.
func replace(s, old, repl string) (any, bool) {
	if old == "" {
		return s, true
	}
	if len(repl) > len(old) {
		n := int64(strings.Count(s, old))
		if int64(len(s))+n*int64(len(repl)-len(old)) > rows.MaxEventBytes {
			return nil, false
		}
	}
	return strings.ReplaceAll(s, old, repl), true
}

// bounded fails a string result larger than rows.MaxEventBytes (Lower and
// Upper may lengthen a string: at most three bytes for one).
func bounded(s string) (any, bool) {
	if len(s) > rows.MaxEventBytes {
		return nil, false
	}
	return s, true
}

// charIndex is the 1-based code-point position of find in search at or
// after start (start < 1 means 1), 0 when absent or when find is empty.
func charIndex(find, search string, start int64) int64 {
	if find == "" {
		return 0
	}
	rs := []rune(search)
	from := int64(0)
	if start > 1 {
		from = start - 1
	}
	if from >= int64(len(rs)) {
		return 0
	}
	rest := string(rs[from:])
	at := strings.Index(rest, find)
	if at < 0 {
		return 0
	}
	return from + int64(utf8.RuneCountInString(rest[:at])) + 1
}

// substring returns the code points at 1-based positions start …
// start+length−1 that exist; a negative length is a failure. It slices the
// input's own bytes, so a byte that is not UTF-8 (a CSV or Avro text may
// hold one) counts as one code point and stays one byte, never growing into
// U+FFFD's three.
func substring(s string, start, length int64) (any, bool) {
	if length < 0 {
		return nil, false
	}
	from := max(start, 1)
	to := satAdd(start, length) // exclusive
	if to <= from {
		return "", true
	}
	begin, end := len(s), len(s)
	pos := int64(1)
	for i := 0; i < len(s); pos++ {
		if pos == from {
			begin = i
		}
		if pos == to {
			end = i
			break
		}
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
	}
	return s[begin:end], true
}

// round rounds x to places decimal places, halves away from zero, on the
// exact value of an integer or the shortest decimal text of a double.
func round(x number, places int64) (any, bool) {
	if x.isInt && places >= 0 {
		return long(x.i), true
	}
	switch {
	case places > 400: // beyond any double's digits
		return double(x.f)
	case places < -400: // beyond any value's digits
		if x.isInt {
			return long(0), true
		}
		return double(0)
	}
	r := new(big.Rat)
	if x.isInt {
		r.SetInt64(x.i)
	} else if _, ok := r.SetString(strconv.FormatFloat(x.f, 'g', -1, 64)); !ok {
		return nil, false
	}
	scale := new(big.Rat).SetInt(new(big.Int).Exp(big.NewInt(10), big.NewInt(max(places, -places)), nil))
	if places >= 0 {
		r.Mul(r, scale)
	} else {
		r.Quo(r, scale)
	}
	q, rem := new(big.Int).QuoRem(new(big.Int).Abs(r.Num()), r.Denom(), new(big.Int))
	if rem.Lsh(rem, 1).Cmp(r.Denom()) >= 0 {
		q.Add(q, big.NewInt(1))
	}
	if r.Sign() < 0 {
		q.Neg(q)
	}
	r.SetInt(q)
	if places >= 0 {
		r.Quo(r, scale)
	} else {
		r.Mul(r, scale)
	}
	if x.isInt {
		if !r.IsInt() || !r.Num().IsInt64() {
			return nil, false
		}
		return long(r.Num().Int64()), true
	}
	f, _ := r.Float64()
	return double(f)
}
