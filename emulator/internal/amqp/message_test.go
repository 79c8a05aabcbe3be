package amqp

import (
	"bytes"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"
)

// TestMessageVector checks a message's bytes against part 3, section 3.2:
// each section is a described value with its descriptor code.
func TestMessageVector(t *testing.T) {
	want := []byte{
		0x00, 0x53, 0x70, 0xc0, 0x02, 0x01, 0x41, // header: list8 [durable true]
		0x00, 0x53, 0x73, 0xc0, 0x06, 0x01, 0xa1, 0x03, 'i', 'd', '1', // properties: [message-id "id1"]
		0x00, 0x53, 0x74, 0xc1, 0x07, 0x02, 0xa1, 0x01, 'k', 0xa1, 0x01, 'v', // application-properties: map8 {"k": "v"}
		0x00, 0x53, 0x75, 0xa0, 0x02, 'h', 'i', // data: vbin8 "hi"
	}
	m := &Message{
		Header:                &Header{Durable: true, Priority: 4},
		Properties:            &Properties{MessageID: "id1"},
		ApplicationProperties: Map{{"k", "v"}},
		Data:                  [][]byte{[]byte("hi")},
	}
	b, err := m.Marshal()
	if err != nil || !bytes.Equal(b, want) {
		t.Fatalf("marshal = % x, %v\nwant      % x", b, err, want)
	}
	got, err := DecodeMessage(want)
	if err != nil || !reflect.DeepEqual(got, m) {
		t.Fatalf("decode = %#v, %v", got, err)
	}
}

// fullMessage has every section and property set.
func fullMessage() *Message {
	gs := uint32(7)
	return &Message{
		Header:              &Header{Durable: true, Priority: 9, TTL: 1000, FirstAcquirer: true, DeliveryCount: 2},
		DeliveryAnnotations: Map{{Symbol("x-opt-lock-token"), UUID{1}}},
		MessageAnnotations:  Map{{Symbol("x-opt-partition-key"), "pk"}, {uint64(5), int64(1)}},
		Properties: &Properties{MessageID: UUID{2}, UserID: []byte("u"), To: "to", Subject: "s", ReplyTo: "r",
			CorrelationID: uint64(9), ContentType: "application/json", ContentEncoding: "gzip",
			AbsoluteExpiryTime: time.UnixMilli(2000).UTC(), CreationTime: time.UnixMilli(1000).UTC(),
			GroupID: "g", GroupSequence: &gs, ReplyToGroupID: "rg"},
		ApplicationProperties: Map{{"a", int32(1)}, {"b", true}, {"c", 1.5}, {"d", []byte{1}}},
		Data:                  [][]byte{[]byte("one"), {}, []byte("three")},
		Footer:                Map{{Symbol("f"), "x"}},
	}
}

// TestMessageRoundTrip round-trips every body kind.
func TestMessageRoundTrip(t *testing.T) {
	seq := fullMessage()
	seq.Data, seq.Sequence = nil, [][]any{{"a", uint32(1)}, {}}
	val := fullMessage()
	val.Data, val.Value, val.HasValue = nil, nil, true
	val2 := &Message{Value: Map{{"k", []any{int64(1)}}}, HasValue: true}
	empty := &Message{}
	for i, m := range []*Message{fullMessage(), seq, val, val2, empty} {
		b, err := m.Marshal()
		if err != nil {
			t.Fatalf("%d: marshal: %v", i, err)
		}
		got, err := DecodeMessage(b)
		if err != nil || !reflect.DeepEqual(got, m) {
			t.Fatalf("%d: round trip = %#v, %v\nwant %#v", i, got, err, m)
		}
	}
}

// section returns the encoding of a described section for error tests.
func section(code uint64, v any) []byte {
	b, err := EncodeValue(Described{Descriptor: code, Value: v})
	if err != nil {
		panic(err)
	}
	return b
}

// TestDecodeMessageErrors checks order, types and keys of sections.
func TestDecodeMessageErrors(t *testing.T) {
	data := section(descData, []byte("x"))
	cases := []struct {
		name, want string
		b          []byte
	}{
		{"garbage", "decode message section at byte 0: decode value: unknown format code 0x02", []byte{0x02}},
		{"not described", "section at byte 0 is not a message section", []byte{0x40}},
		{"not a section", "section at byte 6 is not a message section", append(data, section(descOpen, []any{})...)},
		{"order", "decode message: header after data", append(data, section(descHeader, []any{})...)},
		{"twice", "decode message: properties after properties", append(section(descProperties, []any{}), section(descProperties, []any{})...)},
		{"mixed body", "decode message: amqp-value after data", append(data, section(descAMQPValue, nil)...)},
		{"two values", "decode message: amqp-value after amqp-value", append(section(descAMQPValue, nil), section(descAMQPValue, nil)...)},
		{"data type", "decode data: want binary, got string", section(descData, "x")},
		{"sequence type", "decode amqp-sequence: want list, got string", section(descAMQPSequence, "x")},
		{"header type", "decode header: want list, got map", section(descHeader, Map{})},
		{"header field", "decode header: field priority: want ubyte, got uint", section(descHeader, []any{nil, uint32(1)})},
		{"properties field", "decode properties: field message-id: want ulong, uuid, binary or string, got symbol",
			section(descProperties, []any{Symbol("x")})},
		{"correlation id", "decode properties: field correlation-id: want ulong, uuid, binary or string, got boolean",
			section(descProperties, []any{nil, nil, nil, nil, nil, true})},
		{"annotations type", "decode message-annotations: want map, got list", section(descMessageAnnotations, []any{})},
		{"annotation key", "decode delivery-annotations: key 0 is string, want symbol or ulong",
			section(descDeliveryAnnotations, Map{{"k", nil}})},
		{"footer key", "decode footer: key 0 is uint, want symbol or ulong", section(descFooter, Map{{uint32(1), nil}})},
		{"app props type", "decode application-properties: want map, got list", section(descApplicationProperties, []any{})},
		{"app props key", "decode application-properties: key 0 is symbol, want string",
			section(descApplicationProperties, Map{{Symbol("k"), nil}})},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := DecodeMessage(tc.b)
			if !errors.Is(err, ErrMalformed) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want %q", err, tc.want)
			}
		})
	}
	if _, err := (&Message{ApplicationProperties: Map{{"k", 1}}}).Marshal(); err == nil {
		t.Fatal("marshal of a Go int succeeded")
	}
}

// TestBatch encodes an Event Hubs batch and decodes it back.
func TestBatch(t *testing.T) {
	outer := &Message{MessageAnnotations: Map{{Symbol("x-opt-partition-key"), "pk"}}}
	msgs := []*Message{
		{ApplicationProperties: Map{{"n", int64(1)}}, Data: [][]byte{[]byte("e1")}},
		{Properties: &Properties{MessageID: "m2"}, Data: [][]byte{[]byte("e2")}},
	}
	b, err := EncodeBatch(outer, msgs)
	if err != nil {
		t.Fatal(err)
	}
	gotOuter, got, err := DecodeBatch(b)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(gotOuter.MessageAnnotations, outer.MessageAnnotations) || len(gotOuter.Data) != 2 {
		t.Fatalf("outer = %#v", gotOuter)
	}
	if !reflect.DeepEqual(got, msgs) {
		t.Fatalf("messages = %#v\nwant %#v", got, msgs)
	}
	if _, err := EncodeBatch(nil, []*Message{{Value: 1, HasValue: true}}); err == nil {
		t.Fatal("batch of a bad message encoded")
	}
}

// TestBatchErrors checks the batch-specific failures.
func TestBatchErrors(t *testing.T) {
	value, _ := (&Message{Value: "x", HasValue: true}).Marshal()
	none, _ := (&Message{MessageAnnotations: Map{}}).Marshal()
	inner, _ := (&Message{Data: [][]byte{{0x02}}}).Marshal()
	cases := []struct {
		name, want string
		b          []byte
	}{
		{"garbage", "decode batch: decode message section at byte 0", []byte{0x02}},
		{"value body", "decode batch: body is not data sections", value},
		{"no data", "decode batch: no data sections", none},
		{"bad inner", "decode batch message 0: decode message section at byte 0", inner},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := DecodeBatch(tc.b)
			if !errors.Is(err, ErrMalformed) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want %q", err, tc.want)
			}
		})
	}
}

// TestDecodeMessageAliases checks the documented sharing: a message's data
// aliases the payload, while DecodeValue copies binary values.
func TestDecodeMessageAliases(t *testing.T) {
	b, _ := (&Message{Data: [][]byte{[]byte("abc")}}).Marshal()
	m, err := DecodeMessage(b)
	if err != nil {
		t.Fatal(err)
	}
	b[len(b)-1] = 'z'
	if string(m.Data[0]) != "abz" {
		t.Fatalf("data = %q, want it to alias the payload", m.Data[0])
	}
	if m.Data = append(m.Data[:0], append(m.Data[0], '!')); b[len(b)-1] != 'z' {
		t.Fatal("appending to a data section wrote past it into the payload")
	}
	in := []byte{0xa0, 1, 'x'}
	v, _, err := DecodeValue(in)
	in[2] = 'y'
	if bin, _ := v.([]byte); err != nil || string(bin) != "x" {
		t.Fatalf("decode = %q, %v; want a copy holding \"x\"", v, err)
	}
}
