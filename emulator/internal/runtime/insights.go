package runtime

import (
	"context"
	"strings"
	"time"

	"github.com/fabrictest/fabrictest/emulator/internal/drain"
	"github.com/fabrictest/fabrictest/emulator/internal/insights"
	"github.com/fabrictest/fabrictest/emulator/internal/store"
	"github.com/fabrictest/fabrictest/emulator/rows"
	"github.com/twmb/franz-go/pkg/kgo"
)

// The data insights of Eventstream nodes (fabric-docs, "Monitor the status
// and performance of an eventstream"). What each counter counts here:
//
//   - a destination's InputEvents and InputEventBytes are the records its
//     processor received (value bytes), counted once delivered;
//     DeserializationErrors the received records whose value is not a JSON
//     object when the destination reads Json (they are still written, as
//     {"value": text}), or that do not decode in its Csv or Avro format
//     (dropped, and logged with partition and offset); OutputEvents and
//     OutputEventBytes the rows its writer committed; RuntimeErrors every
//     failed write attempt (and the rows parked after one);
//     WatermarkDelaySeconds the emulator clock at delivery minus the newest
//     record timestamp delivered; BackloggedInputEvents is computed when
//     read (Backlog).
//   - a stream's IncomingMessages and IncomingBytes are the records
//     produced into its topic through the emulator (every door of the
//     ingest seam, package control; sources; a DerivedStream's
//     destination), bytes being value bytes; OutgoingMessages and
//     OutgoingBytes the records its destinations received, each
//     destination counting once.
//   - a source's InputEvents and InputEventBytes are the events it took
//     in, OutputEvents those it produced into the stream: for a
//     CustomEndpoint source, what any door put in through it
//     (CountIngested).

// StreamNode returns the data insights of stream streamID of Eventstream
// esID (the DefaultStream or a DerivedStream).
func (rt *Runtime) StreamNode(esID, streamID string) *insights.Node {
	return rt.insights.Node(nodeKey(esID, streamID))
}

// SourceNode returns the data insights of source sourceID of Eventstream
// esID.
func (rt *Runtime) SourceNode(esID, sourceID string) *insights.Node {
	return rt.insights.Node(nodeKey(esID, sourceID))
}

// nodeKey is the registry key of a stream or source node: definition node
// ids are only unique within their Eventstream (destination ids are unique
// and keyed as they are).
func nodeKey(esID, id string) string { return esID + "/" + strings.ToLower(id) }

// CountProduced counts recs produced into topic by CountIngested's rule.
func (rt *Runtime) CountProduced(topic, sourceID string, recs []*kgo.Record) {
	if len(recs) > 0 {
		rt.CountIngested(topic, sourceID, int64(len(recs)), valueBytes(recs))
	}
}

// CountIngested is the one rule of what events put into topic count,
// whichever way they came in: the stream the topic belongs to counts n
// incoming messages of size value bytes; source sourceID ("" for none)
// counts them as taken in (InputEvents, InputEventBytes) and sent on
// (OutputEvents).
func (rt *Runtime) CountIngested(topic, sourceID string, n, size int64) {
	esID, streamID, ok := strings.Cut(topic, ".")
	if !ok || n == 0 {
		return
	}
	s := rt.StreamNode(esID, streamID)
	s.Add(insights.IncomingMessages, n)
	s.Add(insights.IncomingBytes, size)
	if sourceID != "" {
		src := rt.SourceNode(esID, sourceID)
		src.Add(insights.InputEvents, n)
		src.Add(insights.InputEventBytes, size)
		src.Add(insights.OutputEvents, n)
	}
}

// CountConsumed counts recs read from topic by a consumer (the HTTP
// consume route) as the stream's outgoing messages.
func (rt *Runtime) CountConsumed(topic string, recs []*kgo.Record) {
	esID, streamID, ok := strings.Cut(topic, ".")
	if !ok || len(recs) == 0 {
		return
	}
	s := rt.StreamNode(esID, streamID)
	s.Add(insights.OutgoingMessages, int64(len(recs)))
	s.Add(insights.OutgoingBytes, valueBytes(recs))
}

func valueBytes(recs []*kgo.Record) int64 {
	var b int64
	for _, r := range recs {
		b += int64(len(r.Value))
	}
	return b
}

// countInput wraps destination d's processor so that what it receives
// from topic counts in the destination's and the stream's insights.
func (rt *Runtime) countInput(d store.Destination, topic string, p *processor) drain.Sink {
	s := &countedSink{processor: p, node: rt.Insights(d.ID), now: rt.cfg.Now}
	if esID, streamID, ok := strings.Cut(topic, "."); ok {
		s.stream = rt.StreamNode(esID, streamID)
	}
	return s
}

// countedSink is a processor that counts the batches it took.
type countedSink struct {
	*processor
	node, stream *insights.Node
	now          func() time.Time
}

// Write processes b and, once it is taken, counts it (a failed write is
// tried again with the same records, so it counts then). The count is
// taken while the processor writes: it reads every value (isJSONObject),
// which is work of its own.
func (s *countedSink) Write(ctx context.Context, b drain.Batch) error {
	jsonFormat := s.processor.jsonFormat()
	counted := make(chan batchCount, 1)
	go func() { counted <- countBatch(b, jsonFormat) }()
	before := s.processor.groupsOverLimit()
	err := s.processor.Write(ctx, b)
	c := <-counted
	s.countGroupsOverLimit(before)
	if err != nil {
		return err
	}
	if !jsonFormat {
		c.bad = s.logFailures(s.processor.takeFailures())
	}
	s.add(c)
	return nil
}

// logFailures writes each record that did not deserialize into the
// node's runtime logs, with its partition and offset, and returns how
// many there were.
func (s *countedSink) logFailures(fs []decodeFailure) int64 {
	for _, f := range fs {
		s.node.Log(s.now(), insights.LevelWarning, "deserialization error, event dropped: "+f.Err.Error(),
			"partition", f.Partition, "offset", f.Offset)
	}
	return int64(len(fs))
}

// batchCount is what a batch adds to the insights.
type batchCount struct {
	n, size, bad int64
	newest       time.Time
}

// countBatch counts b's records, their bytes, the values that are not
// JSON objects when the destination reads Json (jsonFormat), and its
// newest timestamp.
func countBatch(b drain.Batch, jsonFormat bool) batchCount {
	var c batchCount
	for _, r := range b.Records {
		c.n++
		c.size += int64(len(r.Value))
		if jsonFormat && !isJSONObject(r.Value) {
			c.bad++
		}
		if r.Timestamp.After(c.newest) {
			c.newest = r.Timestamp
		}
	}
	return c
}

// add counts a batch the processor took.
func (s *countedSink) add(c batchCount) {
	s.node.Add(insights.InputEvents, c.n)
	s.node.Add(insights.InputEventBytes, c.size)
	s.node.Add(insights.DeserializationErrors, c.bad)
	s.stream.Add(insights.OutgoingMessages, c.n)
	s.stream.Add(insights.OutgoingBytes, c.size)
	if !c.newest.IsZero() {
		s.node.Set(insights.WatermarkDelaySeconds, max(0, int64(s.now().Sub(c.newest)/time.Second)))
	}
}

// isJSONObject reports whether v is a JSON object (what a Json input
// serialization can read as an event). It runs on a goroutine of its own
// (countedSink.Write), where no guard would catch a panic: a value that
// makes the check panic is not an object.
func isJSONObject(v []byte) (ok bool) {
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	return rows.IsObject(v)
}

// countOutput wraps destination d's writer so that the rows it commits
// and its failed writes count in the destination's insights.
func (rt *Runtime) countOutput(d store.Destination, w rowWriter) rowWriter {
	return &countedWriter{w: w, node: rt.Insights(d.ID), rejected: rt.rejectionsOf(d.ID), now: rt.cfg.Now}
}

// countedWriter counts what a destination's writer commits.
type countedWriter struct {
	w        rowWriter
	node     *insights.Node
	rejected *rejections
	now      func() time.Time
}

// write writes out; rows the writer rejected meanwhile (the processor
// writes one batch at a time) are not output. Their bytes are not known
// row by row, so a batch with rejected rows counts its written rows'
// share of the batch's bytes.
func (c *countedWriter) write(ctx context.Context, seq int64, out []outRow) error {
	before, _ := c.rejected.get()
	if err := c.w.write(ctx, seq, out); err != nil {
		c.node.Add(insights.RuntimeErrors, 1)
		c.node.Log(c.now(), insights.LevelError, "writing to the destination failed: "+err.Error(), "seq", seq, "rows", len(out))
		return err
	}
	after, _ := c.rejected.get()
	var size int64
	for _, o := range out {
		size += int64(len(o.Value))
	}
	n := int64(len(out)) - (after - before)
	if n <= 0 {
		return nil
	}
	if n < int64(len(out)) {
		size = size * n / int64(len(out))
	}
	c.node.Add(insights.OutputEvents, n)
	c.node.Add(insights.OutputEventBytes, size)
	return nil
}

// Backlog is destination id's backlogged input events: per partition of
// topic, its end offset minus the drain's next offset. ok is false when no
// drain runs for it or the broker does not answer.
func (rt *Runtime) Backlog(ctx context.Context, id, topic string) (n int64, ok bool) {
	st, running := rt.DrainStatus(id)
	if !running || st.StartErr != nil || topic == "" {
		return 0, false
	}
	ends, err := rt.cfg.Broker.EndOffsets(ctx, topic)
	if err != nil {
		return 0, false
	}
	for p, end := range ends {
		if next, seen := st.Next[p]; seen && end > next {
			n += end - next
		}
	}
	return n, true
}

// countSource counts recs a source runner produced (err is the produce's
// outcome: nothing counts when it failed).
func (rt *Runtime) countSource(err error, run *sourceRunner, recs []*kgo.Record) {
	if err == nil {
		rt.CountProduced(run.spec.Topic, run.spec.ID, recs)
	}
}
