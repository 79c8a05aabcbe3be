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
// destination's format (a record may give several, or none). The
// pipeline skips an event whose offset it has seen, so the rows of one
// record go in with no position but the last, which carries the record's
// offset; a record already fed before a restart is skipped here whole.
func (p *processor) decodedEvents(b drain.Batch) []pipeline.Event {
	next := p.pipe.Offsets()
	events := make([]pipeline.Event, 0, len(b.Records))
	for _, r := range b.Records {
		if n, ok := next[r.Partition]; ok && r.Offset < n {
			continue // fed before a restart
		}
		rs, err := p.format.Decode(r.Value)
		if err != nil {
			p.failures = append(p.failures, decodeFailure{r.Partition, r.Offset, err})
			continue
		}
		for i, row := range rs {
			ev := pipeline.Event{Row: row, Timestamp: r.Timestamp, Partition: r.Partition, Offset: -1}
			if i == len(rs)-1 {
				ev.Offset = r.Offset
			}
			events = append(events, ev)
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

// sameRecord numbers the rows of one record (a CSV or Avro event makes
// several, adjacent, with its partition and offset): next is 0 for a
// record's first row, 1 for its second, ….
type sameRecord struct {
	partition int32
	offset    int64
	k         int
	started   bool
}

// next is r's index among the rows of its record.
func (s *sameRecord) next(r outRow) int {
	if s.started && r.Partition == s.partition && r.Offset == s.offset {
		s.k++
		return s.k
	}
	s.partition, s.offset, s.k, s.started = r.Partition, r.Offset, 0, true
	return 0
}
