package control

import (
	"cmp"
	"context"
	"time"

	"github.com/fabrictest/fabrictest/emulator/internal/definition"
	"github.com/fabrictest/fabrictest/emulator/internal/eventstream"
	"github.com/fabrictest/fabrictest/emulator/internal/store"
	"github.com/fabrictest/fabrictest/emulator/wire"
)

// DestinationView is binding d as the destinations routes answer it: its
// settings, and its delivery as the runtime reports it (Running, Warning
// while Kafka cannot serve its topic, Failed with the drain's error,
// Inactive without a broker).
func (p *Plane) DestinationView(d store.Destination) wire.Destination {
	spec, _ := eventstream.SpecOf(d) // a spec that does not decode renders no database
	j := wire.Destination{ID: d.ID, Type: d.Type, WorkspaceID: d.WorkspaceID, ItemID: d.ItemID, Table: d.Target, Database: spec.Database, Status: "Running"}
	if d.Type == "Eventhouse" {
		j.IngestionMode = cmp.Or(spec.IngestionMode, definition.ProcessedIngestion)
	}
	renderPolicy(&j, d, spec)
	if b := spec.Batching; b != nil {
		j.Batching = &wire.Batching{MinimumRows: b.MinimumRows, MaximumDurationInSeconds: b.MaximumDurationInSeconds}
	}
	if st, ok := p.rt.DrainStatus(d.ID); ok {
		j.Delivery = &wire.Delivery{Delivered: st.Written, FailedAttempts: st.Failures}
		if st.Panics > 0 || st.Skipped > 0 {
			j.Delivery.RecoveredPanics, j.Delivery.SkippedRecords = &st.Panics, &st.Skipped
		}
		if err := p.rt.KafkaHealth(context.Background(), d.ID); err != nil {
			j.Status = StatusWarning // delivery resumes once Kafka answers again
			j.Delivery.LastKafkaError = p.Scrub(err.Error())
		}
		if st.Err != nil {
			j.Status = StatusFailed
			j.Delivery.LastError = p.Scrub(st.Err.Error())
		}
		j.Delivery.Stopped = st.Stopped // by the fail policy: resume starts it again
		p.renderBuffer(d, j.Delivery)
		if n, last := p.rt.Rejections(d.ID); n > 0 {
			j.Delivery.RejectedRows, j.Delivery.LastRejection = n, last
		}
	} else if !p.cfg.Broker.Enabled() {
		j.Status = "Inactive"
	}
	return j
}

// renderPolicy sets j's delivery settings from spec (defaults shown).
func renderPolicy(j *wire.Destination, d store.Destination, spec eventstream.Spec) {
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

// renderBuffer adds a batching destination's buffer to its delivery
// figures: bufferedRows, and bufferedSince (emulator clock) when any.
func (p *Plane) renderBuffer(d store.Destination, delivery *wire.Delivery) {
	n, since, ok := p.rt.Buffered(d.ID)
	if !ok {
		return
	}
	delivery.BufferedRows = &n
	if n > 0 {
		delivery.BufferedSince = since.UTC().Format(time.RFC3339Nano)
	}
}
