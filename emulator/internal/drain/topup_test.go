package drain

import (
	"context"
	"sync"
	"testing"
	"time"
)

// gatedSink holds its first write until release is closed, and records the
// size of every batch.
type gatedSink struct {
	memSink
	release chan struct{}
	entered chan struct{}
	once    sync.Once
	sizes   []int
}

func (s *gatedSink) Write(ctx context.Context, b Batch) error {
	s.once.Do(func() {
		close(s.entered)
		<-s.release
	})
	s.mu.Lock()
	s.sizes = append(s.sizes, len(b.Records))
	s.mu.Unlock()
	return s.memSink.Write(ctx, b)
}

// Records that come while a batch is written go together into the next
// batch: the read made during the write answers with the first of them,
// and the drain tops it up with what the log took in since, instead of
// leaving the rest for a write more.
func TestDrainTopsUpTheReadAheadWithWhatCameSince(t *testing.T) {
	seeds, topic := cluster(t)
	sink := &gatedSink{memSink: memSink{resume: map[int32]int64{}}, release: make(chan struct{}), entered: make(chan struct{})}
	d, err := Start(t.Context(), Config{Seeds: seeds, Topic: topic, Group: "g", Sink: sink})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	produce(t, seeds, topic, 0, 1)
	<-sink.entered // the first batch is being written
	waitReads(t, d, 1, "the read ahead was not made")
	produce(t, seeds, topic, 1, 1)
	waitReads(t, d, 0, "the read ahead was not answered by the second record")
	last := produce(t, seeds, topic, 2, 8)
	close(sink.release)
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	if err := d.WaitPast(ctx, last); err != nil {
		t.Fatal(err)
	}
	sink.mu.Lock()
	defer sink.mu.Unlock()
	if len(sink.sizes) != 2 || sink.sizes[0] != 1 || sink.sizes[1] != 9 {
		t.Fatalf("batches of %v records, want [1 9]", sink.sizes)
	}
}

// waitReads waits until n reads wait in d's pool, failing with why after
// 10 s.
func waitReads(t *testing.T, d *Drain, n int, why string) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(time.Millisecond) {
		d.pool.mu.Lock()
		waiting := len(d.pool.wants)
		d.pool.mu.Unlock()
		if waiting == n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal(why)
		}
	}
}
