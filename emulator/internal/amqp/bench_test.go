package amqp

import (
	"bytes"
	"fmt"
	"testing"
)

// BenchmarkDecodeBatch decodes an Event Hubs batch of 1,000 events of 100
// bytes with two application properties each, as a listener would.
func BenchmarkDecodeBatch(b *testing.B) {
	msgs := make([]*Message, 1000)
	for i := range msgs {
		msgs[i] = &Message{
			ApplicationProperties: Map{{"source", "bench"}, {"i", int64(i)}},
			Data:                  [][]byte{bytes.Repeat([]byte{'x'}, 100)},
		}
	}
	payload, err := EncodeBatch(&Message{MessageAnnotations: Map{{Symbol("x-opt-partition-key"), "pk"}}}, msgs)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(payload)))
	b.ReportAllocs()
	for b.Loop() {
		_, got, err := DecodeBatch(payload)
		if err != nil || len(got) != 1000 {
			b.Fatal(fmt.Sprint(len(got), err))
		}
	}
}

// BenchmarkEncodeMessage encodes a received event with its annotations.
func BenchmarkEncodeMessage(b *testing.B) {
	m := events()[0]
	m.Data = [][]byte{bytes.Repeat([]byte{'x'}, 100)}
	buf := make([]byte, 0, 512)
	b.ReportAllocs()
	for b.Loop() {
		var err error
		if buf, err = m.AppendTo(buf[:0]); err != nil {
			b.Fatal(err)
		}
	}
}
