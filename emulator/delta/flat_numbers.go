package delta

// exactPow10 are the powers of ten a float64 holds exactly.
var exactPow10 = [...]float64{1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15}

// parseShortFloat parses a number literal of at most 15 digits and no
// exponent (-?d*(.d*)?), the common shape of an event's double, without
// strconv.ParseFloat's general path: its digits are an integer a float64
// holds exactly, divided by an exact power of ten, so the one rounding
// gives the nearest double, as ParseFloat does. ok is false for any other
// literal.
func parseShortFloat(s string) (f float64, ok bool) {
	i, neg := 0, len(s) > 0 && s[0] == '-'
	if neg {
		i++
	}
	var mant uint64
	digits, scale := 0, 0
	for ; i < len(s) && isDigit(s[i]); i++ {
		mant, digits = mant*10+uint64(s[i]-'0'), digits+1
	}
	if i < len(s) && s[i] == '.' {
		for i++; i < len(s) && isDigit(s[i]); i++ {
			mant, digits, scale = mant*10+uint64(s[i]-'0'), digits+1, scale+1
		}
	}
	if i != len(s) || digits == 0 || digits > 15 {
		return 0, false
	}
	f = float64(mant)
	if neg {
		f = -f
	}
	return f / exactPow10[scale], true
}

// parseShortInt parses an integer literal of at most 18 digits (-?d+),
// which always fits an int64, as strconv.ParseInt does; ok is false for
// any other literal.
func parseShortInt(s string) (n int64, ok bool) {
	i, neg := 0, len(s) > 0 && s[0] == '-'
	if neg {
		i++
	}
	if len(s)-i == 0 || len(s)-i > 18 {
		return 0, false
	}
	for ; i < len(s); i++ {
		if !isDigit(s[i]) {
			return 0, false
		}
		n = n*10 + int64(s[i]-'0')
	}
	if neg {
		n = -n
	}
	return n, true
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }
