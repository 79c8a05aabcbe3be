package runtime

import (
	"context"
	"encoding/json"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fabrictest/fabrictest/emulator/internal/drain"
	"github.com/fabrictest/fabrictest/emulator/internal/eventstream"
	"github.com/fabrictest/fabrictest/emulator/internal/store"
	"github.com/twmb/franz-go/pkg/kgo"
)

// poisonWriter panics on any batch holding the poison value (as parquet-go
// did on a value nested too deep) and keeps the rows of the others, once
// per seq like a Delta txn.
type poisonWriter struct {
	mu     sync.Mutex
	last   int64
	values []string
}

func (w *poisonWriter) write(_ context.Context, seq int64, out []outRow) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if seq <= w.last {
		return nil // written before
	}
	for _, r := range out {
		if string(r.Value) == `"poison"` {
			panic("definition level out of range: 258 not in [0:255]")
		}
	}
	for _, r := range out {
		w.values = append(w.values, string(r.Value))
	}
	w.last = seq
	return nil
}

// testRejecter is a rejecter parking in a temporary file, and that file's
// lines.
func testRejecter(t *testing.T) (*rejecter, func() []map[string]any) {
	file := filepath.Join(t.TempDir(), "rejected.jsonl")
	r := &rejecter{file: file, stats: &rejections{}, now: time.Now}
	return r, func() []map[string]any {
		var out []map[string]any
		b, _ := os.ReadFile(file)
		for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
			var m map[string]any
			if json.Unmarshal([]byte(line), &m) == nil {
				out = append(out, m)
			}
		}
		return out
	}
}

func journalStore(t *testing.T) (*store.Store, string) {
	t.Helper()
	ctx := context.Background()
	st, err := store.Open("")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	if err := st.CreateWorkspace(ctx, store.Workspace{ID: "w", DisplayName: "w"}, store.RoleAssignment{WorkspaceID: "w", PrincipalID: "p", PrincipalType: "User", Role: store.RoleAdmin}); err != nil {
		t.Fatal(err)
	}
	if err := st.CreateItem(ctx, store.Item{ID: "es", WorkspaceID: "w", Type: eventstream.ItemType, DisplayName: "es"}); err != nil {
		t.Fatal(err)
	}
	if err := st.CreateDestination(ctx, store.Destination{ID: "d", EventstreamID: "es", Type: "Lakehouse", WorkspaceID: "w", ItemID: "es", Target: "t"}); err != nil {
		t.Fatal(err)
	}
	return st, "d"
}

func records(values ...string) drain.Batch {
	b := drain.Batch{Last: map[int32]int64{}}
	for i, v := range values {
		b.Records = append(b.Records, &kgo.Record{Value: []byte(v), Partition: 0, Offset: int64(i)})
		b.Last[0] = int64(i)
	}
	return b
}

// A row the writer panics on is parked and counted; the others of its
// batch are written once, and so are they after a restart that replays
// the batch from the journal.
func TestProcessorRecoversWriterPanic(t *testing.T) {
	st, dest := journalStore(t)
	ctx := context.Background()
	w := &poisonWriter{}
	rej, parked := testRejecter(t)
	stats := rej.stats
	p, err := newProcessor(ctx, st, dest, nil, w, rej, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Write(ctx, records(`1`, `2`, `"poison"`, `4`)); err != nil {
		t.Fatal(err)
	}
	if want := []string{"1", "2", "4"}; !slices.Equal(w.values, want) {
		t.Fatalf("written %q, want %q", w.values, want)
	}
	if n, last := stats.get(); n != 1 || len(parked()) != 1 || parked()[0]["offset"] != 2.0 || p.Panics() < 1 {
		t.Fatalf("rejected %d (%q), parked %v, panics %d; want the poison parked at offset 2", n, last, parked(), p.Panics())
	}

	// A restart with the batch still pending (the process died mid-way,
	// after rows 1 and 2) replays it split the same way.
	j, _ := st.GetJournal(ctx, dest)
	pending, _ := p.journalled(records(`5`, `"poison"`, `7`))
	j.Seq += 3 // split: rows under seqs Seq-2, Seq-1, Seq
	j.Pending = pending
	if err := st.PutJournal(ctx, j); err != nil {
		t.Fatal(err)
	}
	w.last = j.Seq - 2 // "5" landed before the crash
	w.values = append(w.values, "5")
	p2, err := newProcessor(ctx, st, dest, nil, w, rej, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p2.Resume(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if want := []string{"1", "2", "4", "5", "7"}; !slices.Equal(w.values, want) {
		t.Fatalf("after the replay: %q, want %q", w.values, want)
	}
	if n, _ := stats.get(); n != 2 {
		t.Fatalf("rejected %d, want 2", n)
	}
	if j, _ := st.GetJournal(ctx, dest); j.Pending != nil {
		t.Fatalf("pending batch left after the replay: %s", j.Pending)
	}
}

// journalled is the split pending form of b's rows (as writeBatch stores it).
func (p *processor) journalled(b drain.Batch) ([]byte, error) {
	var out []outRow
	for _, r := range b.Records {
		out = append(out, outRow{Value: r.Value, Partition: r.Partition, Offset: r.Offset + 100})
	}
	return json.Marshal(pendingBatch{Split: true, Rows: out})
}
