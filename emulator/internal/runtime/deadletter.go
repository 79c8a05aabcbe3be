package runtime

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"time"

	"github.com/fabrictest/fabrictest/emulator/internal/broker"
	"github.com/fabrictest/fabrictest/emulator/internal/eventstream"
	"github.com/fabrictest/fabrictest/emulator/internal/store"
	"github.com/twmb/franz-go/pkg/kgo"
)

// The headers a dead-lettered record carries after its own (an emulator
// choice; Fabric has no dead-letter topic). Numbers are decimal text.
const (
	HeaderErrorReason   = "fabric-emulator-error-reason" // why the row was not written
	HeaderErrorMetric   = "fabric-emulator-error-metric" // the data-insights metric it counts in
	HeaderErrorTime     = "fabric-emulator-error-time"   // when, RFC 3339 on the emulator's clock
	HeaderSourceTopic   = "fabric-emulator-source-topic" // the record's topic (raw records only)
	HeaderSourcePart    = "fabric-emulator-source-partition"
	HeaderSourceOffset  = "fabric-emulator-source-offset"
	HeaderDestinationID = "fabric-emulator-destination-id"
	HeaderEventstreamID = "fabric-emulator-eventstream-id"
)

// deadLetterTimeout bounds one dead-letter produce; a produce that fails
// or times out fails the batch, which is then written again.
const deadLetterTimeout = 30 * time.Second

// deadLetters is the dlq policy's producer for one destination.
//
// A batch is committed after its dead letters are acknowledged, so a
// crash between the two replays the batch, and a failed produce may have
// written part of it. Before its first send (and after a failed one) the
// producer therefore reads the topic and counts the dead letters this
// destination already has there, by source partition and offset; a row
// whose source record has a dead letter left in that count is not sent
// again. Rows made by operators have no source record: they are sent
// again (their JSON identifies them).
type deadLetters struct {
	rt    *Runtime
	dest  store.Destination
	topic string
	src   string // the Eventstream's topic, looked up on first use

	sent map[sourcePos]int // dead letters in the topic not matched yet; nil until read
}

// sourcePos is a raw record's place in the Eventstream's topic.
type sourcePos struct {
	partition int32
	offset    int64
}

// deadLettersOf returns destination d's dead-letter producer: to
// spec.DeadLetterTopic, or eventstream.DeadLetterTopic by default.
func (rt *Runtime) deadLettersOf(d store.Destination, spec eventstream.Spec) *deadLetters {
	topic := spec.DeadLetterTopic
	if topic == "" {
		topic = eventstream.DeadLetterTopic(d.EventstreamID, d.ID)
	}
	return &deadLetters{rt: rt, dest: d, topic: topic}
}

// send produces rs to the dead-letter topic and waits for every
// acknowledgement from all in-sync replicas (the broker's client produces
// with acks=all), so that the caller commits the records' offsets only
// once they are safe in Kafka.
func (dl *deadLetters) send(ctx context.Context, rs []rejectedRow, now time.Time) error {
	src, err := dl.source(ctx)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, deadLetterTimeout)
	defer cancel()
	if dl.sent == nil {
		if dl.sent, err = dl.readSent(ctx); err != nil {
			return err
		}
	}
	recs := make([]*kgo.Record, 0, len(rs))
	for _, x := range rs {
		if k := (sourcePos{x.Out.Partition, x.Out.Offset}); x.Out.Offset >= 0 && dl.sent[k] > 0 {
			dl.sent[k]-- // sent before a crash or a failed produce
			continue
		}
		recs = append(recs, dl.record(x, src, now))
	}
	if len(recs) == 0 {
		return nil
	}
	if _, err := dl.rt.cfg.Broker.Produce(ctx, dl.topic, recs); err != nil {
		dl.sent = nil // some may have landed: read the topic again
		return fmt.Errorf("send %d rows to dead-letter topic %s: %w", len(recs), dl.topic, err)
	}
	return nil
}

// readSent counts the dead letters of this destination in the topic, by
// the source record they carry.
func (dl *deadLetters) readSent(ctx context.Context) (map[sourcePos]int, error) {
	sent := map[sourcePos]int{}
	r := broker.Range{DefaultStart: broker.Earliest, DefaultEnd: broker.Latest}
	for {
		b, err := dl.rt.cfg.Broker.Consume(ctx, dl.topic, r)
		if err != nil {
			return nil, fmt.Errorf("read dead-letter topic %s: %w", dl.topic, err)
		}
		for _, rec := range b.Records {
			if k, ok := dl.sourceOf(rec); ok {
				sent[k]++
			}
		}
		if b.Complete {
			return sent, nil
		}
		r.Start = b.Next
	}
}

// sourceOf is the source record of one of this destination's dead letters.
func (dl *deadLetters) sourceOf(rec *kgo.Record) (sourcePos, bool) {
	var dest, part, off string
	for _, h := range rec.Headers {
		switch h.Key {
		case HeaderDestinationID:
			dest = string(h.Value)
		case HeaderSourcePart:
			part = string(h.Value)
		case HeaderSourceOffset:
			off = string(h.Value)
		}
	}
	p, perr := strconv.ParseInt(part, 10, 32)
	o, oerr := strconv.ParseInt(off, 10, 64)
	if dest != dl.dest.ID || perr != nil || oerr != nil {
		return sourcePos{}, false
	}
	return sourcePos{int32(p), o}, true
}

// record is x as a dead-letter record: the raw record's key, value and
// headers (a row made by operators: its JSON), then the error headers.
func (dl *deadLetters) record(x rejectedRow, src string, now time.Time) *kgo.Record {
	value := x.Out.Value
	if value == nil {
		value, _ = json.Marshal(x.Out.row()) // a row always marshals
	}
	hs := append([]kgo.RecordHeader(nil), x.Out.Headers...)
	add := func(k, v string) { hs = append(hs, kgo.RecordHeader{Key: k, Value: []byte(v)}) }
	add(HeaderErrorReason, x.Reason.Error())
	add(HeaderErrorMetric, string(x.Metric))
	add(HeaderErrorTime, now.UTC().Format(time.RFC3339Nano))
	if x.Out.Offset >= 0 {
		add(HeaderSourceTopic, src)
		add(HeaderSourcePart, strconv.Itoa(int(x.Out.Partition)))
		add(HeaderSourceOffset, strconv.FormatInt(x.Out.Offset, 10))
	}
	add(HeaderDestinationID, dl.dest.ID)
	add(HeaderEventstreamID, dl.dest.EventstreamID)
	return &kgo.Record{Key: x.Out.Key, Value: value, Headers: hs}
}

// source is the topic the destination's raw records come from.
func (dl *deadLetters) source(ctx context.Context) (string, error) {
	if dl.src != "" {
		return dl.src, nil
	}
	_, props, err := eventstream.Load(ctx, dl.rt.cfg.Store, dl.dest.EventstreamID)
	if err != nil {
		return "", fmt.Errorf("look up the topic of eventstream %s: %w", dl.dest.EventstreamID, err)
	}
	dl.src = props.Default().Topic
	return dl.src, nil
}
