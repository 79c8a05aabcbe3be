package portal

import (
	"fmt"
	"time"

	"strings"
	"testing"

	"github.com/twmb/franz-go/pkg/kgo"
)

// TestShow: how the preview shows a record's bytes.
func TestShow(t *testing.T) {
	for _, c := range []struct {
		name string
		in   []byte
		kind string
		text string
	}{
		{"null", nil, "null", ""},
		{"json", []byte(`{"a":1,"b":[true]}`), "json", "{\n  \"a\": 1,\n  \"b\": [\n    true\n  ]\n}"},
		{"text", []byte("plain <b>text</b>\n\tline"), "text", "plain <b>text</b>\n\tline"},
		{"control", []byte("a\x00b\x1b[31m"), "binary", `"a\x00b\x1b[31m"`},
		{"invalid utf-8", []byte{0xff, 0xfe, 'x'}, "binary", `"\xff\xfex"`},
	} {
		s := show(c.in)
		if s.Kind != c.kind || s.Text != c.text || s.Bytes != len(c.in) {
			t.Errorf("%s: %+v, want kind %s text %q", c.name, s, c.kind, c.text)
		}
		if c.kind == "binary" && s.Base64 == "" {
			t.Errorf("%s: no base64", c.name)
		}
	}
	big := []byte(`"` + strings.Repeat("x", maxShown+10) + `"`)
	if s := show(big); s.Kind != "text" || len(s.Text) != maxShown || s.Bytes != len(big) {
		t.Errorf("a value over %d bytes: kind %s, %d bytes shown of %d", maxShown, s.Kind, len(s.Text), s.Bytes)
	}
	if got := safeText("h\x07"); got != `"h\a"` {
		t.Errorf("safeText of a control character: %q", got)
	}
}

// TestPreviewSendsRecordsInTimeOrder: a read's records, grouped by
// partition, go to the page oldest first across partitions, so that the
// page (which puts each on top) shows the newest first.
func TestPreviewSendsRecordsInTimeOrder(t *testing.T) {
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	rec := func(p int32, o int64, sec int) *kgo.Record {
		return &kgo.Record{Partition: p, Offset: o, Timestamp: at.Add(time.Duration(sec) * time.Second)}
	}
	got := inTimeOrder([]*kgo.Record{rec(0, 0, 1), rec(0, 1, 3), rec(1, 0, 2), rec(1, 1, 3), rec(1, 2, 4)})
	var order []string
	for _, r := range got {
		order = append(order, fmt.Sprintf("%d/%d", r.Partition, r.Offset))
	}
	if want := "0/0 1/0 0/1 1/1 1/2"; strings.Join(order, " ") != want {
		t.Fatalf("order %v, want %s", order, want)
	}
}
