package pipeline

import "strings"

var aggAliases = map[string]AggFunc{
	"count": Count, "sum": Sum, "min": Min, "minimum": Min, "max": Max, "maximum": Max,
	"avg": Avg, "average": Avg, "mean": Avg,
}

var refusedFns = map[string]string{
	"percentilecontinuous":        "PercentileContinuous",
	"percentilediscrete":          "PercentileDiscrete",
	"standarddeviation":           "StandardDeviation",
	"standarddeviationpopulation": "StandardDeviationPopulation",
	"variance":                    "Variance",
	"variancepopulation":          "VariancePopulation",
}

func parseGroupBy(o obj, name string) (Operator, error) {
	keys, err := o.strList("keys")
	if err != nil {
		return nil, err
	}
	g := GroupBy{Name: name, Keys: keys}
	raw, ok := o.m["aggregates"]
	if !ok {
		return nil, invalid(join(o.path, "aggregates"), "required: [{fn, field, as}...]")
	}
	list, ok := raw.([]any)
	if !ok || len(list) == 0 {
		return nil, invalid(join(o.path, "aggregates"), "want a non-empty array of {fn, field, as}")
	}
	for i, item := range list {
		p := index(join(o.path, "aggregates"), i)
		am, ok := item.(map[string]any)
		if !ok {
			return nil, invalid(p, "want an object {fn, field, as}")
		}
		ao := obj{m: am, path: p}
		if err := ao.only("fn", "field", "as"); err != nil {
			return nil, err
		}
		fn, err := ao.str("fn", true)
		if err != nil {
			return nil, err
		}
		lower := strings.ToLower(fn)
		if refused, ok := refusedFns[lower]; ok {
			return nil, notSupported(join(p, "fn"), refused, "only count, sum, min, max and avg are built")
		}
		f, ok := aggAliases[lower]
		if !ok {
			return nil, invalid(join(p, "fn"), "%q is not one of count, sum, min, max, avg", fn)
		}
		field, err := ao.str("field", false)
		if err != nil {
			return nil, err
		}
		as, err := ao.str("as", false)
		if err != nil {
			return nil, err
		}
		a := Aggregate{Fn: f, Field: field, As: as}
		a.As = a.Output()
		g.Aggregates = append(g.Aggregates, a)
	}
	w, err := parseWindowAny(o)
	if err != nil {
		return nil, err
	}
	g.Window = w
	if w == (Window{}) {
		// Keys that a preceding seed Window writes are dropped at fusion.
		body := g
		body.Keys = nil
		for _, k := range g.Keys {
			if !reservedWindowField(k) {
				body.Keys = append(body.Keys, k)
			}
		}
		return g, body.validateBody(o.path)
	}
	return g, g.validate(o.path)
}

// parseWindowAny reads a window given as a "window" object or flat on the
// operator; the zero Window means none was given.
func parseWindowAny(o obj) (Window, error) {
	flat := false
	for _, k := range windowMembers {
		if _, ok := o.m[k]; ok {
			flat = true
		}
	}
	raw, nested := o.m["window"]
	switch {
	case nested && flat:
		return Window{}, invalid(join(o.path, "window"), "give the window either as \"window\": {...} or as flat members, not both")
	case nested:
		wm, ok := raw.(map[string]any)
		if !ok {
			return Window{}, invalid(join(o.path, "window"), "want an object {kind, duration, hop, offset, on, allowedLateness}")
		}
		wo := obj{m: wm, path: join(o.path, "window")}
		if err := wo.only(append(windowMembers, "hopSize")...); err != nil {
			return Window{}, err
		}
		return parseWindow(wo)
	case flat:
		return parseWindow(o)
	}
	return Window{}, nil
}

// windowMembers are the members of a window object (or flat on a GroupBy).
var windowMembers = []string{"kind", "duration", "hop", "offset", "on", "allowedLateness", "timeout", "maxDuration", "partitionBy"}

// parseSession reads a session window's timeout, maxDuration and
// partitionBy (a field name).
func parseSession(o obj, w *Window) error {
	var err error
	if w.Timeout, err = o.duration("timeout", true); err != nil {
		return err
	}
	if w.MaxDuration, err = o.duration("maxDuration", true); err != nil {
		return err
	}
	w.PartitionBy, err = o.str("partitionBy", false)
	return err
}

func parseWindow(o obj) (Window, error) {
	kind, err := o.str("kind", true)
	if err != nil {
		return Window{}, err
	}
	lower := strings.ToLower(kind)
	w := Window{Kind: WindowKind(lower)}
	switch w.Kind {
	case Tumbling, Hopping, Sliding:
		if w.Duration, err = o.duration("duration", true); err != nil {
			return Window{}, err
		}
	case Session:
		if err := parseSession(o, &w); err != nil {
			return Window{}, err
		}
	case Snapshot:
		if w.Duration, err = o.duration("duration", false); err != nil {
			return Window{}, err
		}
	default:
		return Window{}, invalid(join(o.path, "kind"), "%q is not tumbling, hopping, sliding, session or snapshot", kind)
	}
	for _, k := range []string{"timeout", "maxDuration", "partitionBy"} {
		if _, given := o.m[k]; given && w.Kind != Session {
			return Window{}, invalid(join(o.path, k), "%s is for session windows", k)
		}
	}
	hopKey := "hop"
	if _, ok := o.m["hopSize"]; ok {
		hopKey = "hopSize"
	}
	if w.Hop, err = o.duration(hopKey, false); err != nil {
		return Window{}, err
	}
	if w.Kind == Tumbling && w.Hop == w.Duration {
		w.Hop = 0
	}
	if w.Offset, err = o.duration("offset", false); err != nil {
		return Window{}, err
	}
	if w.AllowedLateness, err = o.duration("allowedLateness", false); err != nil {
		return Window{}, err
	}
	if w.On, err = o.str("on", false); err != nil {
		return Window{}, err
	}
	if _, given := o.m["on"]; given && w.On == "" {
		return Window{}, invalid(join(o.path, "on"), "must name a field; leave it out for arrival time")
	}
	if err := w.validate(o.path); err != nil {
		return Window{}, err
	}
	return w, nil
}
