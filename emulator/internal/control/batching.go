package control

import (
	"encoding/json"

	"github.com/fabrictest/fabrictest/emulator/internal/definition"
	"github.com/fabrictest/fabrictest/emulator/internal/eventstream"
	"github.com/fabrictest/fabrictest/emulator/internal/fabricerr"
	"github.com/fabrictest/fabrictest/emulator/internal/store"
)

// batchingOf is a binding's batching (fabric-docs add-destination-lakehouse:
// minimumRows 1 to 2,000,000, maximumDurationInSeconds 60 to 7,200; a
// file is committed when either is reached). A definition's Lakehouse
// destination always batches, with Fabric's defaults for what it omits; a
// native binding batches when it sets either (the other defaulting), and
// commits at once when it sets neither (nil).
func batchingOf(typ string, req BindRequest, field func(string) string) (*eventstream.Batching, error) {
	rows, secs := req.MinimumRows, req.MaximumDurationInSeconds
	if req.batching != nil {
		rows, secs = req.batching.MinimumRows, req.batching.MaximumDurationInSeconds
	}
	if req.batching == nil && rows == nil && secs == nil {
		return nil, nil
	}
	if typ != "Lakehouse" {
		f := "maximumDurationInSeconds"
		if rows != nil {
			f = "minimumRows"
		}
		return nil, fabricerr.BadParameter(field(f), "only a Lakehouse destination batches; a %s destination takes no %s", typ, f)
	}
	b := &eventstream.Batching{MinimumRows: eventstream.DefaultMinimumRows, MaximumDurationInSeconds: eventstream.DefaultMaximumDurationInSeconds}
	if rows != nil {
		if *rows < eventstream.MinMinimumRows || *rows > eventstream.MaxMinimumRows {
			return nil, fabricerr.BadParameter(field("minimumRows"), "want %d to %d rows, got %d", eventstream.MinMinimumRows, eventstream.MaxMinimumRows, *rows)
		}
		b.MinimumRows = *rows
	}
	if secs != nil {
		if *secs < eventstream.MinMaximumDuration || *secs > eventstream.MaxMaximumDuration {
			return nil, fabricerr.BadParameter(field("maximumDurationInSeconds"), "want %d to %d seconds, got %d", eventstream.MinMaximumDuration, eventstream.MaxMaximumDuration, *secs)
		}
		b.MaximumDurationInSeconds = *secs
	}
	return b, nil
}

// withBatching is spec with its Batching set to b.
func withBatching(spec json.RawMessage, b *eventstream.Batching) (json.RawMessage, error) {
	if b == nil {
		return spec, nil
	}
	s, err := eventstream.SpecOf(store.Destination{Spec: spec})
	if err != nil {
		return nil, err
	}
	s.Batching = b
	return s.Encode(), nil
}

// batchingTarget copies d's resolved batching into a definition's target.
func batchingTarget(t *definition.Target, s eventstream.Spec) {
	if s.Batching != nil {
		t.MinimumRows, t.MaximumDurationInSeconds = s.Batching.MinimumRows, s.Batching.MaximumDurationInSeconds
	}
}

// batchingSpec is a definition target's batching for its stored spec.
func batchingSpec(t definition.Target) *eventstream.Batching {
	if t.MinimumRows == 0 {
		return nil
	}
	return &eventstream.Batching{MinimumRows: t.MinimumRows, MaximumDurationInSeconds: t.MaximumDurationInSeconds}
}
