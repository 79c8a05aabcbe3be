package runtime

import (
	"encoding/json"

	"github.com/fabrictest/fabrictest/emulator/internal/drain"
	"github.com/fabrictest/fabrictest/emulator/pipeline"
)

// decodeFailure is a record that did not deserialize in the destination's
// format: Fabric drops it, counts it in DeserializationErrors and logs it
// in the node's runtime logs.
type decodeFailure struct {
	Partition int32
	Offset    int64
	Err       error
}

// decodedRows turns a batch's records into the rows of a destination
// without operators whose format is Csv or Avro: each record gives the
// rows it holds, which carry their compact JSON as Value (what an
// Eventhouse, an Activator or a DerivedStream takes), and one that does
// not decode gives none and is a failure. Records before next were
// delivered before a restart.
func (p *processor) decodedRows(b drain.Batch, offsets map[int32]int64) []outRow {
	out := make([]outRow, 0, len(b.Records))
	for _, r := range b.Records {
		if next, ok := offsets[r.Partition]; ok && r.Offset < next {
			continue
		}
		offsets[r.Partition] = r.Offset + 1
		rs, err := p.format.Decode(r.Value)
		if err != nil {
			p.failures = append(p.failures, decodeFailure{r.Partition, r.Offset, err})
			continue
		}
		for _, row := range rs {
			v, _ := json.Marshal(row)
			out = append(out, outRow{Row: row, Key: r.Key, Value: v, Headers: r.Headers, Partition: r.Partition, Offset: r.Offset})
		}
	}
	return out
}

// decodedEvents are a batch's records as the operators' events, by the
// destination's format (a record may give several, or none).
func (p *processor) decodedEvents(b drain.Batch) []pipeline.Event {
	events := make([]pipeline.Event, 0, len(b.Records))
	for _, r := range b.Records {
		rs, err := p.format.Decode(r.Value)
		if err != nil {
			p.failures = append(p.failures, decodeFailure{r.Partition, r.Offset, err})
			continue
		}
		for _, row := range rs {
			events = append(events, pipeline.Event{Row: row, Timestamp: r.Timestamp, Partition: r.Partition, Offset: r.Offset})
		}
	}
	return events
}

// takeFailures returns the failures of the last Write and forgets them.
func (p *processor) takeFailures() []decodeFailure {
	p.mu.Lock()
	defer p.mu.Unlock()
	f := p.failures
	p.failures = nil
	return f
}

// jsonFormat reports whether the destination reads Json (FromValue's
// rules, rows made lazily).
func (p *processor) jsonFormat() bool { return p.format.IsJSON() }
