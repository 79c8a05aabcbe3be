package runtime

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/fabrictest/fabrictest/emulator/internal/eventstream"
	"github.com/fabrictest/fabrictest/emulator/internal/insights"
	"github.com/fabrictest/fabrictest/emulator/internal/store"
	"github.com/fabrictest/fabrictest/emulator/rows"
	"github.com/twmb/franz-go/pkg/kgo"
)

func heldRejecter(policy string) *rejecter {
	return &rejecter{policy: policy, stats: &rejections{}, node: insights.NewRegistry().Node("d1"), now: time.Now, held: map[string]bool{}}
}

// retry and fail dispose of nothing: the batch fails with a *heldError.
// retry counts and logs a row once however often it is retried; fail
// counts every attempt (each follows a resume), at level Error. The
// connector semantics the issue cites (error.strategy) define the
// policies; Fabric documents none of them.
func TestHoldingPoliciesCountAndFail(t *testing.T) {
	row := rejectedRow{Seq: 3, Out: outRow{Partition: 1, Offset: 9}, Reason: errors.New(`field "q" is long`), Metric: insights.DataConversionErrors}
	for _, c := range []struct {
		policy string
		counts int64
		level  insights.Level
	}{{eventstream.PolicyRetry, 1, insights.LevelWarning}, {eventstream.PolicyFail, 3, insights.LevelError}} {
		r := heldRejecter(c.policy)
		for range 3 {
			var he *heldError
			if err := r.reject(context.Background(), []rejectedRow{row}); !errors.As(err, &he) || he.Unwrap() != row.Reason {
				t.Fatalf("%s: reject = %v, want a *heldError of the row's reason", c.policy, err)
			}
		}
		logs := r.node.Logs()
		if got := r.node.Counters()[insights.DataConversionErrors]; got != c.counts || int64(len(logs)) != c.counts || logs[0].Level != c.level {
			t.Fatalf("%s: counted %d, logged %v; want %d at %s", c.policy, got, logs, c.counts, c.level)
		}
		if n, _ := r.stats.get(); n != 0 {
			t.Fatalf("%s: %d rows counted as rejected, want none (nothing was disposed of)", c.policy, n)
		}
	}
}

// A dead letter carries the raw record's key, value and headers first,
// then the error headers; a row made by operators goes as its JSON,
// without source coordinates.
func TestDeadLetterRecord(t *testing.T) {
	dl := &deadLetters{dest: store.Destination{ID: "d1", EventstreamID: "es1"}, topic: "dead"}
	at := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	raw := dl.record(rejectedRow{Out: outRow{Key: []byte("k"), Value: []byte(`{"q":{}}`), Partition: 2, Offset: 7,
		Headers: []kgo.RecordHeader{{Key: "trace", Value: []byte("t1")}}}, Reason: errors.New("no"), Metric: insights.RuntimeErrors}, "es1.ds", at)
	h := map[string]string{}
	for _, x := range raw.Headers {
		h[x.Key] = string(x.Value)
	}
	if raw.Headers[0].Key != "trace" || string(raw.Key) != "k" || string(raw.Value) != `{"q":{}}` || h[HeaderSourceTopic] != "es1.ds" ||
		h[HeaderSourcePart] != "2" || h[HeaderSourceOffset] != "7" || h[HeaderErrorReason] != "no" || h[HeaderErrorMetric] != "RuntimeErrors" ||
		h[HeaderErrorTime] != "2026-11-30T12:00:00Z" || h[HeaderDestinationID] != "d1" || h[HeaderEventstreamID] != "es1" {
		t.Fatalf("raw dead letter %s %s %v", raw.Key, raw.Value, h)
	}
	made := dl.record(rejectedRow{Out: outRow{Row: rows.Row{"n": 2}, Partition: -1, Offset: -1}, Reason: errors.New("no")}, "es1.ds", at)
	for _, x := range made.Headers {
		if x.Key == HeaderSourceOffset || x.Key == HeaderSourceTopic {
			t.Fatalf("a row made by operators has no source: %v", made.Headers)
		}
	}
	if string(made.Value) != `{"n":2}` || made.Key != nil {
		t.Fatalf("operator row dead letter %s %s", made.Key, made.Value)
	}
}
