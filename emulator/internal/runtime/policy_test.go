package runtime

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/fabrictest/fabrictest/emulator/internal/broker"
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

// TestDeadLettersOnceAcrossARestart: a batch replayed after a crash (a new
// producer, as a restarted destination has) sends only the dead letters
// its first run did not: each source record's rows once, the rows of one
// record counted; a row made by operators, which has no source record, is
// sent again; another destination's dead letters in the same topic do
// not count.
func TestDeadLettersOnceAcrossARestart(t *testing.T) {
	f := newFixture(t)
	rt := f.runtime()
	spec := eventstream.Spec{ErrorPolicy: eventstream.PolicyDLQ, DeadLetterTopic: "shared-dlq"}
	row := func(p int32, o int64) rejectedRow {
		return rejectedRow{Out: outRow{Value: fmt.Appendf(nil, `{"p":%d,"o":%d}`, p, o), Partition: p, Offset: o}, Reason: errors.New("no")}
	}
	made := rejectedRow{Out: outRow{Row: rows.Row{"n": 1}, Partition: -1, Offset: -1}, Reason: errors.New("no")}
	first := []rejectedRow{row(0, 5), row(0, 6), row(0, 6), made}
	other := f.dest
	other.ID = "d2"
	must(t, rt.deadLettersOf(other, spec).send(f.ctx, []rejectedRow{row(0, 7)}, time.Now()))
	must(t, rt.deadLettersOf(f.dest, spec).send(f.ctx, first, time.Now()))

	again := append(append([]rejectedRow{}, first...), row(0, 7), row(1, 5))
	must(t, rt.deadLettersOf(f.dest, spec).send(f.ctx, again, time.Now()))

	b, err := f.b.Consume(f.ctx, "shared-dlq", broker.Range{DefaultStart: broker.Earliest, DefaultEnd: broker.Latest})
	must(t, err)
	count := map[string]int{}
	for _, r := range b.Records {
		dest := ""
		for _, h := range r.Headers {
			if h.Key == HeaderDestinationID {
				dest = string(h.Value)
			}
		}
		count[dest+" "+string(r.Value)]++
	}
	want := map[string]int{`d2 {"p":0,"o":7}`: 1, `d1 {"p":0,"o":5}`: 1, `d1 {"p":0,"o":6}`: 2, `d1 {"n":1}`: 2,
		`d1 {"p":0,"o":7}`: 1, `d1 {"p":1,"o":5}`: 1}
	if fmt.Sprint(count) != fmt.Sprint(want) || len(b.Records) != 8 {
		t.Fatalf("dead letters in the topic %v (%d records), want %v", count, len(b.Records), want)
	}
}
