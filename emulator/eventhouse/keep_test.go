package eventhouse_test

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/Azure/azure-kusto-go/azkustodata/kql"

	"github.com/fabrictest/fabrictest/emulator/eventhouse"
	"github.com/fabrictest/fabrictest/emulator/rows"
)

// TestIngestKeepSchema: under KeepSchema an existing table keeps its
// columns, as Kusto's ingestion does ("Ingestion mappings",
// learn.microsoft.com/kusto/management/mappings: fields map to columns, no
// column is added): a field without a column is not written and is
// reported; a missing field is null; a value that does not fit is null and
// reported. A table that does not exist is created from the batch. The
// calls' own conflicts reach WithConflicts' handler.
func TestIngestKeepSchema(t *testing.T) {
	srv, c := setup(t, nil)
	if _, err := c.Kusto().Mgmt(ctx(t), db, kql.New(".create table ['Orders'] (['id']:long, ['a']:string, ['amount']:real)")); err != nil {
		t.Fatal(err)
	}
	var conflicts []string
	keep := eventhouse.KeepSchema(eventhouse.WithConflicts(ctx(t), func(cf eventhouse.Conflict) {
		conflicts = append(conflicts, fmt.Sprintf("%d %s %q %v", cf.Row, cf.Column, cf.ColumnType, cf.Value))
	}))
	batch := []rows.Row{row(t, `{"id": 1, "a": "x", "amount": 2}`), row(t, `{"id": 2, "b": "y", "amount": "lots"}`)}
	if err := c.Ingest(keep, db, "Orders", batch, "orders-1"); err != nil {
		t.Fatal(err)
	}
	got := readBack(t, c, "Orders")
	want := []map[string]any{{"id": int64(1), "a": "x", "amount": float64(2)}, {"id": int64(2), "a": "", "amount": nil}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("rows\n%v\nwant\n%v", got, want)
	}
	slices.Sort(conflicts)
	if s := strings.Join(conflicts, "; "); s != `1 amount "real" lots; 1 b "" y` {
		t.Fatalf("conflicts: %s", s)
	}
	for _, r := range commands(srv, ".create-merge") {
		t.Fatalf("KeepSchema changed an existing table: %s", r.CSL)
	}

	// A table that does not exist yet is created from the batch.
	if err := c.Ingest(keep, db, "Fresh", []rows.Row{row(t, `{"id": 1, "k": "v"}`)}, "fresh-1"); err != nil {
		t.Fatal(err)
	}
	if got := readBack(t, c, "Fresh"); !reflect.DeepEqual(got, []map[string]any{{"id": int64(1), "k": "v"}}) {
		t.Fatalf("new table rows %v", got)
	}
}
