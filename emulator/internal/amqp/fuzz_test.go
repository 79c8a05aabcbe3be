package amqp

import (
	"bytes"
	"testing"
)

// valueSeeds are encodings of every type for the fuzz corpora.
func valueSeeds() [][]byte {
	var seeds [][]byte
	for _, v := range append(vectors, wideVectors...) {
		seeds = append(seeds, v.b)
	}
	return seeds
}

// FuzzDecodeValue checks that no input panics the decoder, and that what
// decodes re-encodes to bytes that decode and re-encode identically.
func FuzzDecodeValue(f *testing.F) {
	for _, s := range valueSeeds() {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		v, n, err := DecodeValue(b)
		if err != nil {
			return
		}
		if n < 1 || n > len(b) {
			t.Fatalf("decode took %d of %d bytes", n, len(b))
		}
		checkStable(t, v)
	})
}

// checkStable encodes v, decodes that, and encodes again: the two
// encodings must be equal.
func checkStable(t *testing.T, v any) {
	t.Helper()
	b1, err := EncodeValue(v)
	if err != nil {
		t.Fatalf("encode decoded %#v: %v", v, err)
	}
	v2, n, err := DecodeValue(b1)
	if err != nil || n != len(b1) {
		t.Fatalf("decode re-encoded % x: %v (%d bytes)", b1, err, n)
	}
	b2, err := EncodeValue(v2)
	if err != nil || !bytes.Equal(b1, b2) {
		t.Fatalf("re-encoding differs: % x then % x (%v)", b1, b2, err)
	}
}

// FuzzReadFrame reads frames with a 4 KiB limit, decodes their
// performatives, and checks that decoded performatives re-encode stably.
func FuzzReadFrame(f *testing.F) {
	for _, p := range allPerformatives() {
		b, err := AppendPerformativeFrame(nil, 1, p, []byte("x"))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add(Heartbeat())
	f.Add([]byte{0, 0, 0, 12, 3, 0, 0, 0, 1, 2, 3, 4})
	f.Fuzz(func(t *testing.T, b []byte) {
		r := bytes.NewReader(b)
		for {
			fr, err := ReadFrame(r, 4096)
			if err != nil {
				return
			}
			if len(fr.Body) > 4096-8 {
				t.Fatalf("body of %d bytes passed a 4096-byte limit", len(fr.Body))
			}
			p, payload, err := DecodeFrame(fr)
			if err != nil || p == nil {
				continue
			}
			checkPerformative(t, fr.Channel, p, payload)
		}
	})
}

// checkPerformative re-encodes p, decodes it and re-encodes it again.
func checkPerformative(t *testing.T, channel uint16, p Performative, payload []byte) {
	t.Helper()
	b1, err := AppendPerformativeFrame(nil, channel, p, payload)
	if err != nil {
		t.Fatalf("encode decoded %#v: %v", p, err)
	}
	fr, err := ReadFrame(bytes.NewReader(b1), uint32(len(b1)))
	if err != nil {
		t.Fatalf("read re-encoded frame: %v", err)
	}
	p2, payload2, err := DecodeFrame(fr)
	if err != nil {
		t.Fatalf("decode re-encoded %s: %v", PerformativeName(p), err)
	}
	b2, err := AppendPerformativeFrame(nil, channel, p2, payload2)
	if err != nil || !bytes.Equal(b1, b2) {
		t.Fatalf("re-encoding differs: % x then % x (%v)", b1, b2, err)
	}
}

// FuzzDecodeMessage decodes messages and batches and checks that decoded
// messages re-encode stably.
func FuzzDecodeMessage(f *testing.F) {
	for _, m := range []*Message{fullMessage(), {Value: []any{"v"}, HasValue: true}} {
		b, err := m.Marshal()
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
		if b, err = EncodeBatch(m, []*Message{m, m}); err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if _, msgs, err := DecodeBatch(b); err == nil {
			for _, m := range msgs {
				checkMessage(t, m)
			}
		}
		if m, err := DecodeMessage(b); err == nil {
			checkMessage(t, m)
		}
	})
}

// checkMessage marshals m, decodes that and marshals it again.
func checkMessage(t *testing.T, m *Message) {
	t.Helper()
	b1, err := m.Marshal()
	if err != nil {
		t.Fatalf("marshal decoded %#v: %v", m, err)
	}
	m2, err := DecodeMessage(b1)
	if err != nil {
		t.Fatalf("decode re-encoded % x: %v", b1, err)
	}
	b2, err := m2.Marshal()
	if err != nil || !bytes.Equal(b1, b2) {
		t.Fatalf("re-encoding differs: % x then % x (%v)", b1, b2, err)
	}
}
