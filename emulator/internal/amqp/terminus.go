package amqp

// Source is the source terminus of a link (0x28).
type Source struct {
	Address               string
	Durable               uint32 // terminus-durability: 0 none, 1 configuration, 2 unsettled-state
	ExpiryPolicy          Symbol // default session-end when absent
	Timeout               uint32 // seconds
	Dynamic               bool
	DynamicNodeProperties Map
	DistributionMode      Symbol
	Filter                Map // filter-set: symbol keys, described filter values
	DefaultOutcome        DeliveryState
	Outcomes              []Symbol
	Capabilities          []Symbol
}

// Target is the target terminus of a link (0x29).
type Target struct {
	Address               string
	Durable               uint32
	ExpiryPolicy          Symbol
	Timeout               uint32
	Dynamic               bool
	DynamicNodeProperties Map
	Capabilities          []Symbol
}

// value returns the described list of s, null for a nil s.
func (s *Source) value() any {
	if s == nil {
		return nil
	}
	return describe(descSource, []any{
		nonZero(s.Address), nonZero(s.Durable), nonZero(s.ExpiryPolicy), nonZero(s.Timeout),
		nonZero(s.Dynamic), mapField(s.DynamicNodeProperties), nonZero(s.DistributionMode),
		mapField(s.Filter), stateField(s.DefaultOutcome), symbolArray(s.Outcomes),
		symbolArray(s.Capabilities),
	})
}

// value returns the described list of t, null for a nil t.
func (t *Target) value() any {
	if t == nil {
		return nil
	}
	return describe(descTarget, []any{
		nonZero(t.Address), nonZero(t.Durable), nonZero(t.ExpiryPolicy), nonZero(t.Timeout),
		nonZero(t.Dynamic), mapField(t.DynamicNodeProperties), symbolArray(t.Capabilities),
	})
}

// decodeSource decodes an optional source field.
func decodeSource(v any) (*Source, error) {
	if v == nil {
		return nil, nil
	}
	l, err := describedList(v, descSource)
	if err != nil {
		return nil, err
	}
	r := fieldReader{what: "source", fields: l}
	s := &Source{
		Address:               orDefault(&r, "address", ""),
		Durable:               orDefault[uint32](&r, "durable", 0),
		ExpiryPolicy:          orDefault[Symbol](&r, "expiry-policy", ""),
		Timeout:               orDefault[uint32](&r, "timeout", 0),
		Dynamic:               orDefault(&r, "dynamic", false),
		DynamicNodeProperties: orDefault[Map](&r, "dynamic-node-properties", nil),
		DistributionMode:      orDefault[Symbol](&r, "distribution-mode", ""),
		Filter:                orDefault[Map](&r, "filter", nil),
		DefaultOutcome:        composite(&r, "default-outcome", decodeState),
		Outcomes:              r.symbols("outcomes"),
		Capabilities:          r.symbols("capabilities"),
	}
	return s, r.err
}

// decodeTarget decodes an optional target field.
func decodeTarget(v any) (*Target, error) {
	if v == nil {
		return nil, nil
	}
	l, err := describedList(v, descTarget)
	if err != nil {
		return nil, err
	}
	r := fieldReader{what: "target", fields: l}
	t := &Target{
		Address:               orDefault(&r, "address", ""),
		Durable:               orDefault[uint32](&r, "durable", 0),
		ExpiryPolicy:          orDefault[Symbol](&r, "expiry-policy", ""),
		Timeout:               orDefault[uint32](&r, "timeout", 0),
		Dynamic:               orDefault(&r, "dynamic", false),
		DynamicNodeProperties: orDefault[Map](&r, "dynamic-node-properties", nil),
		Capabilities:          r.symbols("capabilities"),
	}
	return t, r.err
}
