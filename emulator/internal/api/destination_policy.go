package api

import (
	"cmp"

	"github.com/fabrictest/fabrictest/emulator/internal/eventstream"
	"github.com/fabrictest/fabrictest/emulator/internal/store"
)

// renderPolicy sets j's delivery settings from spec (defaults shown).
func renderPolicy(j *destinationJSON, d store.Destination, spec eventstream.Spec) {
	if d.Type != "Lakehouse" && d.Type != "Eventhouse" {
		return
	}
	j.ErrorPolicy = cmp.Or(spec.ErrorPolicy, eventstream.PolicyDrop)
	if j.ErrorPolicy == eventstream.PolicyDLQ {
		j.DeadLetterTopic = cmp.Or(spec.DeadLetterTopic, eventstream.DeadLetterTopic(d.EventstreamID, d.ID))
	}
	if d.Type == "Lakehouse" {
		j.SchemaMode = cmp.Or(spec.SchemaMode, eventstream.SchemaEnforce)
	}
}
