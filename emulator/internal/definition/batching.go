package definition

import (
	"encoding/json"
	"math"
)

// batchSettings reads Lakehouse node n's minimumRows and
// maximumDurationInSeconds (fabric-rest-api-specs eventstream
// destination.json: integers); their ranges are checked with the
// binding, as a native binding's are.
func batchSettings(n *Node) (*BatchSettings, error) {
	var b BatchSettings
	for key, dst := range map[string]**int64{"minimumRows": &b.MinimumRows, "maximumDurationInSeconds": &b.MaximumDurationInSeconds} {
		v, ok := n.Props[key]
		if !ok || v == nil {
			continue
		}
		i, ok := wholeNumber(v)
		if !ok {
			return nil, BadNode(n, "properties."+key, "want a whole number, got %v", v)
		}
		*dst = &i
	}
	return &b, nil
}

// wholeNumber is v as an int64 when it is a JSON integer.
func wholeNumber(v any) (int64, bool) {
	switch x := v.(type) {
	case json.Number:
		if i, err := x.Int64(); err == nil {
			return i, true
		}
		f, err := x.Float64()
		if err != nil || f != math.Trunc(f) || math.Abs(f) > 1<<53 {
			return 0, false
		}
		return int64(f), true
	case float64:
		if x != math.Trunc(x) || math.Abs(x) > 1<<53 {
			return 0, false
		}
		return int64(x), true
	}
	return 0, false
}
