package delta

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"testing"
)

// shortNumbers is literals around the edges of parseShortFloat and
// parseShortInt, and random ones of every length they take.
func shortNumbers() []string {
	out := []string{
		"0", "-0", "0.0", "-0.0", "1", "-1", "1.", ".5", "-.5", "0.1", "0.3", "2.675", "1.005",
		"123456789012345", "-123456789012345", "1234567890123456", "9007199254740993",
		"0.000000000000001", "0.0000000000000001", "999999999999999", "99999999999999.9",
		"922337203685477580", "-922337203685477580", "9223372036854775807", "-9223372036854775808",
		"1e3", "1E-3", "-", "", "+1", "1.2.3", "12a", "--1", "00012", "1_000",
	}
	r := rand.New(rand.NewPCG(1, 2))
	for range 20_000 {
		digits := 1 + r.IntN(19)
		b := make([]byte, 0, 24)
		if r.IntN(2) == 0 {
			b = append(b, '-')
		}
		dot := r.IntN(digits + 1)
		for d := range digits {
			if d == dot && r.IntN(2) == 0 {
				b = append(b, '.')
			}
			b = append(b, byte('0'+r.IntN(10)))
		}
		out = append(out, string(b))
	}
	return out
}

// parseShortFloat gives ParseFloat's double, to the bit, for every literal
// it takes, and takes the short plain literals of events.
func TestParseShortFloatIsParseFloat(t *testing.T) {
	taken := 0
	for _, s := range shortNumbers() {
		f, ok := parseShortFloat(s)
		if !ok {
			continue
		}
		taken++
		want, err := strconv.ParseFloat(s, 64)
		if err != nil || math.Float64bits(f) != math.Float64bits(want) {
			t.Fatalf("parseShortFloat(%q) = %v (%x), ParseFloat %v (%x), %v", s, f, math.Float64bits(f), want, math.Float64bits(want), err)
		}
	}
	for _, s := range []string{"20.5", "-0", "40", "123456789012.125"} {
		if _, ok := parseShortFloat(s); !ok {
			t.Errorf("parseShortFloat(%q) not taken", s)
		}
	}
	if taken < 5_000 {
		t.Fatalf("only %d literals taken", taken)
	}
}

// parseShortInt gives ParseInt's integer for every literal it takes, and
// takes integers of up to 18 digits.
func TestParseShortIntIsParseInt(t *testing.T) {
	taken := 0
	for _, s := range shortNumbers() {
		n, ok := parseShortInt(s)
		if !ok {
			continue
		}
		taken++
		want, err := strconv.ParseInt(s, 10, 64)
		if err != nil || n != want {
			t.Fatalf("parseShortInt(%q) = %d, ParseInt %d, %v", s, n, want, err)
		}
	}
	for _, s := range []string{"0", "-7", "922337203685477580", fmt.Sprint(-math.MaxInt64 / 10)} {
		if _, ok := parseShortInt(s); !ok {
			t.Errorf("parseShortInt(%q) not taken", s)
		}
	}
	if taken < 2_000 {
		t.Fatalf("only %d literals taken", taken)
	}
}
