package cdc

import (
	"encoding/base64"
	"fmt"
	"math/big"
	"strconv"
	"strings"
)

// decimalValue renders a decimal's text s as decimalHandlingMode says,
// as Debezium does: Precise is Kafka Connect's Decimal logical type in
// JSON, the base64 of the unscaled value's big-endian two's complement
// (the scale is the column's, scale; a column without one, scale < 0,
// gives Debezium's VariableScaleDecimal {"scale", "value"}); Double is a
// JSON number; String is the text. NaN and infinities are null under
// Precise (Debezium's), numbers' text elsewhere.
func decimalValue(s, mode string, scale int) (any, error) {
	switch mode {
	case DecimalString:
		return s, nil
	case DecimalDouble:
		f, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return nil, fmt.Errorf("decimal %q: %w", s, err)
		}
		return jsonFloat(f), nil
	}
	low := strings.ToLower(s)
	if low == "nan" || strings.HasSuffix(low, "infinity") {
		return nil, nil
	}
	unscaled, sc, err := unscale(s, scale)
	if err != nil {
		return nil, err
	}
	b64 := base64.StdEncoding.EncodeToString(twosComplement(unscaled))
	if scale < 0 {
		return map[string]any{"scale": sc, "value": b64}, nil
	}
	return b64, nil
}

// unscale parses decimal text into its unscaled integer at scale (the
// text's own scale when scale < 0), and the scale used.
func unscale(s string, scale int) (*big.Int, int, error) {
	r, ok := new(big.Rat).SetString(s)
	if !ok {
		return nil, 0, fmt.Errorf("decimal %q is not a number", s)
	}
	if scale < 0 {
		scale = 0
		if i := strings.IndexByte(s, '.'); i >= 0 {
			frac := s[i+1:]
			if j := strings.IndexAny(frac, "eE"); j >= 0 {
				frac = frac[:j]
			}
			scale = len(frac)
		}
		if strings.ContainsAny(s, "eE") { // exponent notation: keep what is exact, up to 18 places
			scale = 18
		}
	}
	if scale > 1000 {
		return nil, 0, fmt.Errorf("decimal %q: scale %d is too large", s, scale)
	}
	r.Mul(r, new(big.Rat).SetInt(new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(scale)), nil)))
	q := new(big.Int).Quo(r.Num(), r.Denom())
	return q, scale, nil
}

// twosComplement is n's minimal big-endian two's complement (Java's
// BigInteger.toByteArray, what Kafka Connect's Decimal writes).
func twosComplement(n *big.Int) []byte {
	if n.Sign() >= 0 {
		b := n.Bytes()
		if len(b) == 0 || b[0]&0x80 != 0 {
			b = append([]byte{0}, b...)
		}
		return b
	}
	// -n = ~(n-1): take |n|-1, invert, and keep a leading 1 bit.
	m := new(big.Int).Sub(new(big.Int).Neg(n), big.NewInt(1))
	b := m.Bytes()
	for i := range b {
		b[i] = ^b[i]
	}
	if len(b) == 0 || b[0]&0x80 == 0 {
		b = append([]byte{0xff}, b...)
	}
	return b
}

// jsonFloat is f, or its text for what JSON cannot hold (NaN, ±Inf).
func jsonFloat(f float64) any {
	if f != f || f > 1.7976931348623157e308 || f < -1.7976931348623157e308 {
		return strconv.FormatFloat(f, 'g', -1, 64)
	}
	return f
}
