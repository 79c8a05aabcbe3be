package runtime

import (
	"cmp"
	"context"
	"fmt"
	"strconv"

	"github.com/fabrictest/fabrictest/emulator/internal/eventstream"
	"github.com/fabrictest/fabrictest/emulator/internal/store"
	"github.com/twmb/franz-go/pkg/kgo"
)

// Headers every record of a derived stream carries: the seq of the batch
// that wrote it and its index in that batch.
const (
	headerSeq   = "fabric-emulator-seq"
	headerIndex = "fabric-emulator-index"
)

// streamWriter produces a DerivedStream's rows, as JSON records, into its
// one-partition topic, exactly once: each record carries its batch's seq
// and its index in the batch, and before its first write (and after any
// failure) the writer reads the partition's last record to learn what was
// written. A batch written again after a crash is skipped when a later seq
// is there already, and resumes after the last index written when its own
// seq is.
type streamWriter struct {
	rt    *Runtime
	s     eventstream.Stream
	known bool // last is what the partition ends with
	last  mark // the last record written
}

// mark is the (seq, index) of a derived stream's record; the zero mark
// (seq 0) precedes every batch.
type mark struct {
	seq   int64
	index int
}

func (w *streamWriter) write(ctx context.Context, seq int64, out []outRow) error {
	if !w.known {
		if err := w.rt.EnsureStreamTopic(ctx, w.s); err != nil {
			return err
		}
		m, err := w.readLast(ctx)
		if err != nil {
			return err
		}
		w.last, w.known = m, true
	}
	from := 0
	switch {
	case w.last.seq > seq:
		return nil // written before a crash, and followed by later batches
	case w.last.seq == seq:
		from = w.last.index + 1 // a crash cut the batch short, or it was all written
	}
	if from >= len(out) {
		return nil
	}
	recs := make([]*kgo.Record, 0, len(out)-from)
	for i := from; i < len(out); i++ {
		recs = append(recs, &kgo.Record{Key: out[i].Key, Value: out[i].Value, Headers: []kgo.RecordHeader{
			{Key: headerSeq, Value: strconv.AppendInt(nil, seq, 10)},
			{Key: headerIndex, Value: strconv.AppendInt(nil, int64(i), 10)},
		}})
	}
	// A closing drain waits for the write in flight: letting the records
	// be acknowledged (rather than cancelled on the wire) keeps the next
	// writer's read of the partition's end from missing records that land
	// after it.
	pctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), DeliveryTimeout)
	defer cancel()
	if _, err := w.rt.cfg.Broker.Produce(pctx, w.s.Topic, recs); err != nil {
		w.known = false // some may have landed: read the partition again
		return fmt.Errorf("produce into derived stream %s: %w", w.s.Name, err)
	}
	w.rt.CountProduced(w.s.Topic, "", recs) // data insights
	w.last = mark{seq: seq, index: len(out) - 1}
	return nil
}

// readLast reads the mark of the partition's last record.
func (w *streamWriter) readLast(ctx context.Context) (mark, error) {
	r, err := w.rt.cfg.Broker.LastRecord(ctx, w.s.Topic, 0)
	if err != nil {
		return mark{}, fmt.Errorf("read derived stream %s: %w", w.s.Name, err)
	}
	if r == nil {
		return mark{}, nil
	}
	m := mark{index: -1}
	var okSeq, okIndex bool
	for _, h := range r.Headers {
		switch h.Key {
		case headerSeq:
			m.seq, err = strconv.ParseInt(string(h.Value), 10, 64)
			okSeq = err == nil
		case headerIndex:
			var i int64
			i, err = strconv.ParseInt(string(h.Value), 10, 32)
			m.index, okIndex = int(i), err == nil
		}
	}
	if !okSeq || !okIndex {
		return mark{}, fmt.Errorf("read derived stream %s: its last record (offset %d) has no %s and %s headers; it was not written by the emulator",
			w.s.Name, r.Offset, headerSeq, headerIndex)
	}
	return m, nil
}

func init() {
	writers[eventstream.DerivedStreamType] = func(rt *Runtime, d store.Destination, spec eventstream.Spec) (rowWriter, error) {
		return &streamWriter{rt: rt, s: eventstream.Stream{ID: d.Target, Name: cmp.Or(spec.Name, d.Target),
			Type: eventstream.DerivedStreamType, Topic: eventstream.DerivedTopic(d.EventstreamID, d.Target)}}, nil
	}
}
