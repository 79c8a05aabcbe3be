package api

import (
	"bytes"
	"fmt"
	"testing"
	"time"

	"github.com/fabrictest/fabrictest/emulator/internal/eventbody"
)

// benchProduceBody is the body of emulator's BenchmarkRatios: 1,000 small
// JSON events with a text key.
func benchProduceBody() []byte {
	var body bytes.Buffer
	body.WriteString(`{"events":[`)
	for i := range 1000 {
		key := fmt.Sprintf("sensor-%04d", i%100)
		if i > 0 {
			body.WriteByte(',')
		}
		fmt.Fprintf(&body, `{"key":%q,"value":{"deviceId":"%s","seq":%d,"temperature":%.2f,"humidity":%.1f,"status":"ok","ts":%d}}`,
			key, key, i, 18+float64(i%700)/100, 40+float64(i%300)/10, 1_700_000_000_000+int64(i))
	}
	body.WriteString(`]}`)
	return body.Bytes()
}

// BenchmarkParseEvents: validating a produce body of 1,000 events and
// turning it into records, with pooled buffers as the route has them.
func BenchmarkParseEvents(b *testing.B) {
	body := benchProduceBody()
	now := time.Now()
	b.SetBytes(int64(len(body)))
	for b.Loop() {
		sc := eventbody.GetScratch()
		if _, err := eventbody.Parse(body, now, sc); err != nil {
			b.Fatal(err)
		}
		sc.Release()
	}
}
