package control

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/fabrictest/fabrictest/emulator/internal/broker"
	"github.com/fabrictest/fabrictest/emulator/internal/insights"
	"github.com/fabrictest/fabrictest/emulator/rows"
	"github.com/fabrictest/fabrictest/emulator/wire"
	"github.com/twmb/franz-go/pkg/kgo"
)

// CheckEvent: Fabric's 1 MB (MaxEventBytes) counts key, value and headers together; a
// JSON object value must fit a table row, unless the door saw it fit.
func TestCheckEvent(t *testing.T) {
	half := bytes.Repeat([]byte("x"), MaxEventBytes/2)
	ok := &kgo.Record{Key: half, Value: half}
	if err := CheckEvent(0, ok, false); err != nil {
		t.Fatalf("an event of exactly the limit: %v", err)
	}
	big := &kgo.Record{Key: half, Value: half, Headers: []kgo.RecordHeader{{Key: "h"}}}
	e := wantKind(t, CheckEvent(7, big, false), TooLarge, wire.EventTooLarge)
	if e.Index != 7 || !strings.HasPrefix(e.Error(), fmt.Sprintf("event 7 is %d bytes", MaxEventBytes+1)) {
		t.Errorf("too large: index %d, %q", e.Index, e.Error())
	}
	deep := []byte(`{"a":` + strings.Repeat(`{"b":`, rows.MaxDepth) + `1` + strings.Repeat(`}`, rows.MaxDepth) + `}`)
	e = wantKind(t, CheckEvent(2, &kgo.Record{Value: deep}, false), Unsupported, wire.EventValueNotSupported)
	if e.Index != 2 || e.ResourceID == "" {
		t.Errorf("too deep: %+v", e)
	}
	if err := CheckEvent(2, &kgo.Record{Value: deep}, true); err != nil {
		t.Errorf("a value the door saw fit is read again: %v", err)
	}
	if err := CheckEvent(0, &kgo.Record{Value: []byte(`[1,2]`)}, false); err != nil {
		t.Errorf("a value that is no object: %v", err)
	}
}

// Write and Forwarded count by the one rule: the same events leave the
// same counts on the stream and the source, bytes being value bytes.
func TestWriteAndForwardedCountAlike(t *testing.T) {
	b, err := broker.Embedded(broker.EmbeddedConfig{})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	f := newFixture(t, b)
	ctx := context.Background()
	l, err := f.in.Open(ctx, Caller{ID: writer}, Target{wsID, esID, srcID})
	if err != nil {
		t.Fatal(err)
	}
	recs := []*kgo.Record{{Key: []byte("k"), Value: []byte(`{"a":1}`)}, {Value: []byte(`{"b":22}`), Headers: []kgo.RecordHeader{{Key: "h", Value: []byte("v")}}}}
	pos, err := l.Write(ctx, recs, Delivered)
	if err != nil || len(pos) != 2 {
		t.Fatalf("write: %v, %v", pos, err)
	}
	stream, source := f.rt.StreamNode(esID, dsID).Counters(), f.rt.SourceNode(esID, srcID).Counters()
	want := map[insights.Metric]int64{insights.IncomingMessages: 2, insights.IncomingBytes: 15}
	for k, v := range want {
		if stream[k] != v {
			t.Errorf("stream %s = %d, want %d (%v)", k, stream[k], v, stream)
		}
	}
	want = map[insights.Metric]int64{insights.InputEvents: 2, insights.InputEventBytes: 15, insights.OutputEvents: 2}
	for k, v := range want {
		if source[k] != v {
			t.Errorf("source %s = %d, want %d (%v)", k, source[k], v, source)
		}
	}
	f.in.Forwarded(Grant{Node: srcID, Topic: l.Stream.Topic}, 2, 15)
	f.in.Forwarded(Grant{Node: dstID, Topic: l.Stream.Topic, Listen: true}, 5, 50) // a listener sends nothing
	again, src2 := f.rt.StreamNode(esID, dsID).Counters(), f.rt.SourceNode(esID, srcID).Counters()
	for k, v := range stream {
		if again[k] != 2*v {
			t.Errorf("stream %s after a forward of the same: %d, want %d", k, again[k], 2*v)
		}
	}
	for k, v := range source {
		if src2[k] != 2*v {
			t.Errorf("source %s after a forward of the same: %d, want %d", k, src2[k], 2*v)
		}
	}
}

// A broker that fails is a typed refusal wrapping the broker's error.
func TestWriteBrokerFailure(t *testing.T) {
	e := wantKind(t, brokerError(&broker.ProduceError{Failed: 2, Total: 3, Err: context.DeadlineExceeded}, 3), Unavailable, wire.KafkaUnavailable)
	var pe *broker.ProduceError
	if !strings.Contains(e.Message, "did not accept 2 of 3 events (1 were written)") || !errorsAs(e, &pe) {
		t.Errorf("partial produce: %q", e.Message)
	}
	wantKind(t, brokerError(broker.ErrNoBroker, 1), NoBroker, wire.KafkaNotConfigured)
}
