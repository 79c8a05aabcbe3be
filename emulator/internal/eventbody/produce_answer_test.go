package eventbody

import (
	"bytes"
	"net/http/httptest"
	"testing"

	"github.com/fabrictest/fabrictest/emulator/internal/broker"
	gojson "github.com/goccy/go-json"
)

// The produce answer is what the JSON encoder wrote for it before
// WriteProduceAnswer: the same bytes, topic names that need escapes included.
func TestWriteProduceAnswerMatchesEncoder(t *testing.T) {
	for _, tc := range []struct {
		topic string
		pos   []broker.Position
	}{
		{"es.ds", []broker.Position{{Partition: 0, Offset: 0}}},
		{"es.ds", []broker.Position{{Partition: 2, Offset: 7}, {Partition: 0, Offset: 12}, {Partition: 2, Offset: 8}, {Partition: 10, Offset: 1 << 40}}},
		{"odd<&>\"\\é", []broker.Position{{Partition: 1, Offset: 3}}},
	} {
		var want bytes.Buffer
		if err := gojson.NewEncoder(&want).Encode(map[string]any{
			"produced": len(tc.pos), "topic": tc.topic, "partitions": summarize(tc.pos), "events": tc.pos,
		}); err != nil {
			t.Fatal(err)
		}
		w := httptest.NewRecorder()
		if err := WriteProduceAnswer(w, AppendProduceAnswer([]byte("stale"), tc.topic, tc.pos)[len("stale"):]); err != nil {
			t.Fatal(err)
		}
		if got := w.Body.String(); got != want.String() {
			t.Errorf("answer differs from the encoder's:\n got %s\nwant %s", got, want.String())
		}
		if ct := w.Header().Get("Content-Type"); ct != "application/json; charset=utf-8" {
			t.Errorf("Content-Type %q", ct)
		}
	}
}
