package amqp

import (
	"bytes"
	"errors"
	"reflect"
	"strings"
	"testing"
)

// TestPerformativeVectors checks whole frames against bytes derived by hand
// from part 2, section 2.7 (performative fields) and part 1 (encodings).
func TestPerformativeVectors(t *testing.T) {
	cases := []struct {
		name string
		p    Performative
		want []byte
	}{
		{"open", &Open{ContainerID: "c", MaxFrameSize: 512, ChannelMax: 1}, []byte{
			0, 0, 0, 0x20, 2, 0, 0, 0, // frame: size 32, doff 2, type AMQP, channel 0
			0x00, 0x53, 0x10, // described, smallulong 0x10 (open)
			0xc0, 0x13, 0x0a, // list8, size 19, all 10 fields (open is sent whole)
			0xa1, 0x01, 'c', // container-id str8 "c"
			0x40,                   // hostname null
			0x70, 0, 0, 0x02, 0x00, // max-frame-size uint 512
			0x60, 0x00, 0x01, // channel-max ushort 1
			0x40, 0x40, 0x40, 0x40, 0x40, 0x40, // idle-time-out … properties: null
		}},
		{"disposition accepted", &Disposition{Role: RoleReceiver, Settled: true, State: &Accepted{}}, []byte{
			0, 0, 0, 0x16, 2, 0, 0, 0, // size 22
			0x00, 0x53, 0x15, // disposition
			0xc0, 0x09, 0x05, // list8, size 9, 5 fields
			0x41,                   // role true (receiver)
			0x43,                   // first uint0
			0x40,                   // last null
			0x41,                   // settled true
			0x00, 0x53, 0x24, 0x45, // state: accepted, list0
		}},
		{"sasl-mechanisms", &SASLMechanisms{Mechanisms: []Symbol{"ANONYMOUS"}}, append([]byte{
			0, 0, 0, 0x1c, 2, 1, 0, 0, // size 28, type SASL
			0x00, 0x53, 0x40, // sasl-mechanisms
			0xc0, 0x0f, 0x01, // list8, size 15, 1 field
			0xe0, 0x0c, 0x01, 0xa3, // array8, size 12, 1 element, sym8 constructor
			0x09, // element size 9
		}, "ANONYMOUS"...)},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			b, err := AppendPerformativeFrame(nil, 0, tc.p, nil)
			if err != nil || !bytes.Equal(b, tc.want) {
				t.Fatalf("frame = % x, %v\nwant    % x", b, err, tc.want)
			}
			f, err := ReadFrame(bytes.NewReader(b), MinMaxFrameSize)
			if err != nil {
				t.Fatal(err)
			}
			p, _, err := DecodeFrame(f)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(p, tc.p) {
				t.Fatalf("decode = %#v, want %#v", p, tc.p)
			}
		})
	}
}

func u32(v uint32) *uint32 { return &v }

// allPerformatives has every performative with every field set.
func allPerformatives() []Performative {
	e := &Error{Condition: CondNotFound, Description: "no such entity", Info: Map{{Symbol("k"), "v"}}}
	var ch uint16 = 3
	var mode uint8 = RcvSecond
	filter := Map{{Symbol("apache.org:selector-filter:string"),
		Described{uint64(0x468c00000004), "amqp.annotation.x-opt-offset > '-1'"}}}
	return []Performative{
		&Open{ContainerID: "c1", Hostname: "h", MaxFrameSize: 65536, ChannelMax: 10, IdleTimeout: 60000,
			OutgoingLocales: []Symbol{"en"}, IncomingLocales: []Symbol{"en", "de"},
			OfferedCapabilities: []Symbol{"x"}, DesiredCapabilities: []Symbol{"y"},
			Properties: Map{{Symbol("product"), "p"}}},
		&Begin{RemoteChannel: &ch, NextOutgoingID: 1, IncomingWindow: 5000, OutgoingWindow: 5000, HandleMax: 255,
			OfferedCapabilities: []Symbol{"a"}, DesiredCapabilities: []Symbol{"b"}, Properties: Map{{Symbol("p"), int32(1)}}},
		&Attach{Name: "link", Handle: 7, Role: RoleReceiver, SndSettleMode: SndUnsettled, RcvSettleMode: RcvSecond,
			Source: &Source{Address: "hub/ConsumerGroups/$Default/Partitions/0", Durable: 2, ExpiryPolicy: "never",
				Timeout: 9, Dynamic: true, DynamicNodeProperties: Map{{Symbol("d"), true}}, DistributionMode: "copy",
				Filter: filter, DefaultOutcome: &Released{}, Outcomes: []Symbol{"amqp:accepted:list"},
				Capabilities: []Symbol{"c"}},
			Target: &Target{Address: "hub", Durable: 1, ExpiryPolicy: "link-detach", Timeout: 3, Dynamic: true,
				DynamicNodeProperties: Map{{Symbol("e"), uint64(1)}}, Capabilities: []Symbol{"t"}},
			Unsettled: Map{{[]byte{1}, nil}}, IncompleteUnsettled: true, InitialDeliveryCount: u32(0),
			MaxMessageSize: 1 << 20, OfferedCapabilities: []Symbol{"o"}, DesiredCapabilities: []Symbol{"com.microsoft:session-filter"},
			Properties: Map{{Symbol("com.microsoft:epoch"), int64(3)}}},
		&Flow{NextIncomingID: u32(1), IncomingWindow: 2, NextOutgoingID: 3, OutgoingWindow: 4, Handle: u32(5),
			DeliveryCount: u32(6), LinkCredit: u32(300), Available: u32(8), Drain: true, Echo: true,
			Properties: Map{{Symbol("f"), nil}}},
		&Transfer{Handle: 1, DeliveryID: u32(2), DeliveryTag: []byte{0, 1}, MessageFormat: u32(0x80013700),
			Settled: true, More: true, RcvSettleMode: &mode, State: &Received{SectionNumber: 1, SectionOffset: 2},
			Resume: true, Aborted: true, Batchable: true, Payload: []byte("payload")},
		&Disposition{Role: RoleReceiver, First: 1, Last: u32(4), Settled: true, State: &Rejected{Error: e}, Batchable: true},
		&Disposition{Role: RoleSender, First: 9, State: &Modified{DeliveryFailed: true, UndeliverableHere: true,
			MessageAnnotations: Map{{Symbol("x-opt-a"), "b"}}}},
		&Disposition{First: 2, State: &Released{}},
		&Detach{Handle: 4, Closed: true, Error: e},
		&End{Error: &Error{Condition: CondWindowViolation}},
		&End{},
		&Close{Error: e},
		&SASLMechanisms{Mechanisms: []Symbol{"ANONYMOUS", "PLAIN", "MSSBCBS"}},
		&SASLInit{Mechanism: "PLAIN", InitialResponse: []byte("\x00user\x00pass"), Hostname: "localhost"},
		&SASLChallenge{Challenge: []byte("c")},
		&SASLResponse{Response: []byte{}},
		&SASLOutcome{Code: SASLAuth, AdditionalData: []byte("d")},
	}
}

// TestPerformativeRoundTrip encodes and decodes every performative.
func TestPerformativeRoundTrip(t *testing.T) {
	for _, p := range allPerformatives() {
		t.Run(PerformativeName(p), func(t *testing.T) {
			var payload []byte
			if tr, ok := p.(*Transfer); ok {
				payload = tr.Payload
			}
			var buf bytes.Buffer
			if err := WritePerformative(&buf, 5, p, payload); err != nil {
				t.Fatal(err)
			}
			f, err := ReadFrame(&buf, 1<<16)
			if err != nil || f.Channel != 5 {
				t.Fatalf("read frame = %+v, %v", f, err)
			}
			got, gotPayload, err := DecodeFrame(f)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, p) || !bytes.Equal(gotPayload, payload) {
				t.Fatalf("round trip = %#v\nwant %#v", got, p)
			}
			body, err := EncodePerformative(p)
			if err != nil || !bytes.Equal(body, f.Body[:len(f.Body)-len(payload)]) {
				t.Fatalf("EncodePerformative = % x, %v", body, err)
			}
		})
	}
}

// TestDefaults checks that absent fields decode to the spec's defaults.
func TestDefaults(t *testing.T) {
	// open with only container-id: list8 [str8 "c"]
	p, _, err := DecodePerformative([]byte{0x00, 0x53, 0x10, 0xc0, 0x04, 0x01, 0xa1, 0x01, 'c'})
	o, _ := p.(*Open)
	if err != nil || o.MaxFrameSize != 0xffffffff || o.ChannelMax != 0xffff || o.IdleTimeout != 0 {
		t.Fatalf("open = %+v, %v", p, err)
	}
	// attach name "l", handle 0, role receiver: snd-settle-mode defaults to mixed
	p, _, err = DecodePerformative([]byte{0x00, 0x53, 0x12, 0xc0, 0x06, 0x03, 0xa1, 0x01, 'l', 0x43, 0x41})
	a, _ := p.(*Attach)
	if err != nil || a.SndSettleMode != SndMixed || a.RcvSettleMode != RcvFirst || a.Role != RoleReceiver || a.Source != nil {
		t.Fatalf("attach = %+v, %v", p, err)
	}
	// symbolic descriptor "amqp:close:list" with list0
	body := append(append([]byte{0x00, 0xa3, 15}, "amqp:close:list"...), 0x45)
	if p, _, err = DecodePerformative(body); err != nil || !reflect.DeepEqual(p, &Close{}) {
		t.Fatalf("close = %+v, %v", p, err)
	}
	// a single symbol where a multiple symbol is expected: begin's offered-capabilities
	p, _, err = DecodePerformative([]byte{0x00, 0x53, 0x11, 0xc0, 0x09, 0x06, 0x40, 0x43, 0x43, 0x43, 0x40, 0xa3, 0x01, 'x'})
	b, _ := p.(*Begin)
	if err != nil || len(b.OfferedCapabilities) != 1 || b.OfferedCapabilities[0] != "x" || b.HandleMax != 0xffffffff {
		t.Fatalf("begin = %+v, %v", p, err)
	}
	if hb, _, err := DecodeFrame(Frame{Type: FrameAMQP}); hb != nil || err != nil {
		t.Fatalf("heartbeat = %v, %v", hb, err)
	}
}

// TestPerformativeErrors checks each way a performative can be malformed.
func TestPerformativeErrors(t *testing.T) {
	cases := []struct {
		name, want string
		body       []byte
	}{
		{"bad value", "decode performative: decode value: unknown format code 0x02", []byte{0x02}},
		{"not described", "decode performative: want a described list, got list", []byte{0x45}},
		{"unknown", "decode performative: unknown descriptor 153", []byte{0x00, 0x53, 0x99, 0x45}},
		{"unknown symbol", "unknown descriptor amqp:nope:list", append(append([]byte{0x00, 0xa3, 14}, "amqp:nope:list"...), 0x45)},
		{"not a list", "decode open: want a list, got string", []byte{0x00, 0x53, 0x10, 0xa1, 0x00}},
		{"mandatory", "decode open: field container-id: mandatory field is null", []byte{0x00, 0x53, 0x10, 0x45}},
		{"wrong type", "decode open: field container-id: want string, got uint", []byte{0x00, 0x53, 0x10, 0xc0, 0x02, 0x01, 0x43}},
		{"wrong symbol", "decode begin: field offered-capabilities: want symbol or array of symbol, got string",
			[]byte{0x00, 0x53, 0x11, 0xc0, 0x09, 0x06, 0x40, 0x43, 0x43, 0x43, 0x40, 0xa1, 0x01, 'x'}},
		{"wrong array", "decode begin: field offered-capabilities: array element 0: want symbol, got uint",
			[]byte{0x00, 0x53, 0x11, 0xc0, 0x0b, 0x06, 0x40, 0x43, 0x43, 0x43, 0x40, 0xe0, 0x03, 0x01, 0x52, 0x01}},
		{"trailing", "decode close: 1 bytes after the performative", []byte{0x00, 0x53, 0x18, 0x45, 0x40}},
		{"error field", "decode close: field error: decode error: want a described list, got string",
			[]byte{0x00, 0x53, 0x18, 0xc0, 0x03, 0x01, 0xa1, 0x00}},
		{"error condition", "decode error: field condition: mandatory field is null",
			[]byte{0x00, 0x53, 0x18, 0xc0, 0x05, 0x01, 0x00, 0x53, 0x1d, 0x45}},
		{"error descriptor", "decode error: descriptor is 24",
			[]byte{0x00, 0x53, 0x18, 0xc0, 0x05, 0x01, 0x00, 0x53, 0x18, 0x45}},
		{"state", "decode delivery state: unknown descriptor 52",
			[]byte{0x00, 0x53, 0x15, 0xc0, 0x09, 0x05, 0x41, 0x43, 0x40, 0x41, 0x00, 0x53, 0x34, 0x45}},
		{"state type", "decode delivery state: want a described list, got uint",
			[]byte{0x00, 0x53, 0x15, 0xc0, 0x06, 0x05, 0x41, 0x43, 0x40, 0x41, 0x43}},
		{"received", "decode received: field section-offset: mandatory field is null",
			[]byte{0x00, 0x53, 0x15, 0xc0, 0x0c, 0x05, 0x41, 0x43, 0x40, 0x41, 0x00, 0x53, 0x23, 0xc0, 0x02, 0x01, 0x43}},
		{"source", "decode attach: field source: decode source: field address: want string, got uint",
			[]byte{0x00, 0x53, 0x12, 0xc0, 0x0f, 0x06, 0xa1, 0x01, 'l', 0x43, 0x41, 0x40, 0x40, 0x00, 0x53, 0x28, 0xc0, 0x02, 0x01, 0x43}},
		{"target", "decode attach: field target: decode target: descriptor is 40",
			[]byte{0x00, 0x53, 0x12, 0xc0, 0x0d, 0x07, 0xa1, 0x01, 'l', 0x43, 0x41, 0x40, 0x40, 0x40, 0x00, 0x53, 0x28, 0x45}},
		{"sasl mechanisms", "decode sasl-mechanisms: field sasl-server-mechanisms: mandatory field is null",
			[]byte{0x00, 0x53, 0x40, 0x45}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := DecodePerformative(tc.body)
			if !errors.Is(err, ErrMalformed) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want %q", err, tc.want)
			}
		})
	}
}

// TestFrameTypeMismatch refuses performatives in the other frame type.
func TestFrameTypeMismatch(t *testing.T) {
	body, _ := EncodePerformative(&SASLOutcome{})
	if _, _, err := DecodeFrame(Frame{Type: FrameAMQP, Body: body}); err == nil || !strings.Contains(err.Error(), "sasl-outcome in a frame of type 0") {
		t.Fatalf("SASL in AMQP frame: %v", err)
	}
	body, _ = EncodePerformative(&Close{})
	if _, _, err := DecodeFrame(Frame{Type: FrameSASL, Body: body}); err == nil || !strings.Contains(err.Error(), "close in a frame of type 1") {
		t.Fatalf("close in SASL frame: %v", err)
	}
	if _, _, err := DecodeFrame(Frame{Type: FrameSASL}); err == nil || !strings.Contains(err.Error(), "empty SASL frame") {
		t.Fatalf("empty SASL frame: %v", err)
	}
	if _, _, err := DecodeFrame(Frame{Type: FrameAMQP, Body: []byte{0x02}}); !errors.Is(err, ErrMalformed) {
		t.Fatalf("bad body: %v", err)
	}
}

// TestEncodePerformativeErrors checks that a bad field value is refused.
func TestEncodePerformativeErrors(t *testing.T) {
	p := &Open{ContainerID: "c", Properties: Map{{Symbol("k"), 1}}}
	if _, err := EncodePerformative(p); err == nil || !strings.Contains(err.Error(), "encode open:") {
		t.Fatalf("EncodePerformative: %v", err)
	}
	if b, err := AppendPerformativeFrame([]byte{9}, 0, p, nil); err == nil || !bytes.Equal(b, []byte{9}) {
		t.Fatalf("AppendPerformativeFrame = % x, %v", b, err)
	}
	if err := WritePerformative(&bytes.Buffer{}, 0, p, nil); err == nil {
		t.Fatal("WritePerformative encoded a bad value")
	}
	if err := WritePerformative(failWriter{}, 0, &Close{}, nil); err == nil || !strings.Contains(err.Error(), "write close") {
		t.Fatalf("WritePerformative to a failing writer: %v", err)
	}
	if s := (&Error{Condition: CondDecodeError}).Error(); s != "amqp:decode-error" {
		t.Fatalf("Error() = %q", s)
	}
	if s := (&Error{Condition: CondDecodeError, Description: "d"}).Error(); s != "amqp:decode-error: d" {
		t.Fatalf("Error() = %q", s)
	}
}

// TestOpenZeroMaxFrameSize checks that an unset max-frame-size is sent as
// absent, which the peer reads as the default, not as 0.
func TestOpenZeroMaxFrameSize(t *testing.T) {
	b, err := EncodePerformative(&Open{ContainerID: "c"})
	// described open, list8 of all 10 fields: "c", null, null, channel-max
	// ushort 0, then six nulls
	want := []byte{0x00, 0x53, 0x10, 0xc0, 0x0f, 0x0a, 0xa1, 0x01, 'c', 0x40, 0x40, 0x60, 0x00, 0x00,
		0x40, 0x40, 0x40, 0x40, 0x40, 0x40}
	if err != nil || !bytes.Equal(b, want) {
		t.Fatalf("open = % x, %v; want % x", b, err, want)
	}
	p, _, err := DecodePerformative(b)
	if o, ok := p.(*Open); err != nil || !ok || o.MaxFrameSize != 0xffffffff || o.ChannelMax != 0 {
		t.Fatalf("decode = %+v, %v", p, err)
	}
}
