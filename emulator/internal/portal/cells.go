package portal

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"time"
)

// cell renders one value of a row as the table page shows it: null; a
// string as is; a timestamp as RFC 3339 in UTC without quotes; a double
// with a decimal point even when whole (15.0, as Spark shows it); a
// struct or array as JSON.
func cell(x any) string {
	switch x := x.(type) {
	case nil:
		return "null"
	case string:
		return safeText(x)
	case time.Time:
		return x.UTC().Format("2006-01-02T15:04:05.999999Z07:00")
	case float64:
		return formatDouble(x)
	case int64:
		return strconv.FormatInt(x, 10)
	case bool:
		return strconv.FormatBool(x)
	}
	b, err := json.Marshal(x)
	if err != nil {
		return fmt.Sprint(x)
	}
	return string(b)
}

// formatDouble is the shortest text of f that reads back as f, with ".0"
// on a whole number so that a double never looks like a long.
func formatDouble(f float64) string {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return strconv.FormatFloat(f, 'g', -1, 64)
	}
	s := strconv.FormatFloat(f, 'g', -1, 64)
	for _, c := range s {
		if c == '.' || c == 'e' || c == 'E' {
			return s
		}
	}
	return s + ".0"
}
