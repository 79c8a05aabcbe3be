package drain

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
)

// poisonSink panics on any batch holding the poison value, like a writer
// that cannot take one record; it parks what it is told to skip.
type poisonSink struct {
	memSink
	poison  string
	mu2     sync.Mutex
	skipped []string
}

func (s *poisonSink) Write(ctx context.Context, b Batch) error {
	for _, r := range b.Records {
		if string(r.Value) == s.poison {
			panic("definition level out of range: 258 not in [0:255]")
		}
	}
	return s.memSink.Write(ctx, b)
}

func (s *poisonSink) Skip(_ context.Context, r *kgo.Record, reason error) error {
	s.mu2.Lock()
	defer s.mu2.Unlock()
	s.skipped = append(s.skipped, string(r.Value)+": "+reason.Error())
	return nil
}

// A record whose write panics is recovered, logged, counted and skipped by
// the sink's policy; every other record of its batch, and the ones after
// it, are delivered once.
func TestDrainRecoversSinkPanic(t *testing.T) {
	seeds, topic := cluster(t)
	sink := &poisonSink{memSink: memSink{resume: map[int32]int64{}}, poison: "13"}
	d, err := Start(t.Context(), Config{Seeds: seeds, Topic: topic, Group: "gp", Sink: sink})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	last := produce(t, seeds, topic, 0, 50)
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	if err := d.WaitPast(ctx, last); err != nil {
		t.Fatal(err)
	}
	more := produce(t, seeds, topic, 50, 10)
	if err := d.WaitPast(ctx, more); err != nil {
		t.Fatal(err)
	}
	if n := sink.count(); n != 59 {
		t.Fatalf("sink has %d records, want 59 (all but the poison)", n)
	}
	st := d.Status()
	if st.Panics < 1 || st.Skipped != 1 || st.Written != 59 || st.Err != nil {
		t.Fatalf("status %+v; want ≥1 panic, 1 skipped, 59 written", st)
	}
	if len(sink.skipped) != 1 || !strings.HasPrefix(sink.skipped[0], "13: ") || !strings.Contains(sink.skipped[0], "definition level") {
		t.Fatalf("skipped %q, want the poison with the panic's message", sink.skipped)
	}
}

// panicResumeSink panics while reading its resume points.
type panicResumeSink struct{ memSink }

func (s *panicResumeSink) Resume(context.Context, []int32) (map[int32]int64, error) {
	panic("corrupt state")
}

// A sink that panics reading its resume points fails Start with an error
// instead of taking the process down.
func TestDrainStartRecoversResumePanic(t *testing.T) {
	seeds, topic := cluster(t)
	_, err := Start(t.Context(), Config{Seeds: seeds, Topic: topic, Group: "gr", Sink: &panicResumeSink{}})
	var re *ResumeError
	if !errors.As(err, &re) || !strings.Contains(err.Error(), "corrupt state") {
		t.Fatalf("Start = %v, want a resume error naming the panic", err)
	}
}
