package eventhouse_test

import (
	"strings"
	"testing"

	"github.com/fabrictest/fabrictest/emulator/rows"
)

// TestTake: Take reads at most n rows, each value under its column in
// the table's order, and names the table when it does not exist.
func TestTake(t *testing.T) {
	_, c := setup(t, nil)
	batch := []rows.Row{row(t, `{"id":1,"city":"OSL"}`), row(t, `{"id":2,"city":"RIO"}`), row(t, `{"id":3,"city":"NYC","temp":1.5}`)}
	if err := c.Ingest(ctx(t), db, "Readings", batch, "take-1"); err != nil {
		t.Fatal(err)
	}
	cols, got, err := c.Take(ctx(t), db, "Readings", 2)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(cols, ",") != "city,id,temp" {
		t.Fatalf("columns %v, want the table's city,id,temp", cols)
	}
	if len(got) != 2 || len(got[0]) != 3 {
		t.Fatalf("rows %v, want 2 rows of 3 values", got)
	}
	want := map[int64]string{1: "OSL", 2: "RIO", 3: "NYC"}
	for _, r := range got {
		if id, ok := r[1].(int64); !ok || want[id] == "" || r[0] != want[id] {
			t.Fatalf("row %v: its values are not under their columns", r)
		}
	}
	if _, _, err := c.Take(ctx(t), db, "Missing", 5); err == nil || !strings.Contains(err.Error(), "Missing") {
		t.Fatalf("a missing table: %v", err)
	}
}
