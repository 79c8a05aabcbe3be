package runtime

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fabrictest/fabrictest/emulator/delta"
	"github.com/fabrictest/fabrictest/emulator/internal/store"
	"github.com/fabrictest/fabrictest/emulator/rows"
)

// TestLakehouseWriterRecoversPanics: a panic of the Delta writer is the
// last line of defence's to catch: the batch's rows are parked with the
// panic as their reason and their records' coordinates, the write
// succeeds, and the next batch is written.
func TestLakehouseWriterRecoversPanics(t *testing.T) {
	dir := t.TempDir()
	tbl, err := delta.Open(filepath.Join(dir, "Tables", "t"))
	if err != nil {
		t.Fatal(err)
	}
	rejected := filepath.Join(dir, "Files", "_rejected", "t", "d1.jsonl")
	w := &lakehouseWriter{
		dest: store.Destination{ID: "d1", Target: "t"}, table: tbl, logger: slog.New(slog.DiscardHandler),
		rej: &rejecter{file: rejected, stats: &rejections{}, now: time.Now},
	}
	w.appendFn = func(context.Context, []rows.Row, ...delta.Txn) (int64, error) {
		panic("definition level out of range: 258 not in [0:255]")
	}
	out := []outRow{{Row: rows.Row{"a": 1}, Value: []byte(`{"a":1}`), Partition: 2, Offset: 40}}
	if err := w.write(context.Background(), 1, out); err != nil {
		t.Fatalf("write after a panic: %v", err)
	}
	parked, err := os.ReadFile(rejected)
	if err != nil || !strings.Contains(string(parked), "definition level out of range") ||
		!strings.Contains(string(parked), `"partition":2`) || !strings.Contains(string(parked), `"offset":40`) {
		t.Fatalf("parked: %s (%v)", parked, err)
	}
	if n, last := w.rej.stats.get(); n != 1 || !strings.Contains(last, "Delta writer failed") {
		t.Fatalf("rejections %d %q", n, last)
	}
	w.appendFn = nil
	if err := w.write(context.Background(), 2, []outRow{{Row: rows.Row{"a": 2}, Offset: 41}}); err != nil {
		t.Fatal(err)
	}
	snap, err := delta.ReadTable(tbl.Dir())
	if err != nil || len(snap.Rows) != 1 {
		t.Fatalf("table after the panic: %v rows, %v", snap, err)
	}
}
