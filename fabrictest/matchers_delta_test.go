package fabrictest_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	. "github.com/onsi/gomega"

	"github.com/fabrictest/fabrictest/emulator/delta"
	"github.com/fabrictest/fabrictest/fabrictest"
)

// sampleSnapshot is a two-version table as delta.ReadTable returns it.
func sampleSnapshot() *delta.Snapshot {
	at := time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC)
	return &delta.Snapshot{
		Version: 1,
		TableID: "t-1",
		Schema: delta.Schema{Fields: []delta.Field{
			{Name: "amount", Type: delta.Primitive(delta.TypeDouble)},
			{Name: "at", Type: delta.Primitive(delta.TypeTimestamp)},
			{Name: "order", Type: delta.Primitive(delta.TypeLong)},
		}},
		Rows: []map[string]any{
			{"amount": 10.5, "at": at, "order": int64(0)},
			{"amount": 11.5, "at": at.Add(time.Minute), "order": int64(1)},
			{"amount": nil, "at": nil, "order": int64(2)},
		},
		Commits: []delta.Commit{
			{Version: 0, Operation: "WRITE", AddedFiles: 1, AddedRows: 2, SchemaChanged: true, Txns: []delta.Txn{{AppID: "dest-1", Version: 1}}},
			{Version: 1, Operation: "WRITE", AddedFiles: 1, AddedRows: 1, Txns: []delta.Txn{{AppID: "dest-1", Version: 2}}},
		},
		Files: []delta.File{{Path: "part-0.parquet", Version: 0, NumRecords: 2}, {Path: "part-1.parquet", Version: 1, NumRecords: 1}},
	}
}

func TestHaveDeltaRows(t *testing.T) {
	g := NewWithT(t)
	snap := sampleSnapshot()
	g.Expect(snap).To(fabrictest.HaveDeltaRows(3))
	g.Expect(*snap).To(fabrictest.HaveDeltaRows(3))
	g.Expect(snap).NotTo(fabrictest.HaveDeltaRows(2))

	ok, msg := failure(snap, fabrictest.HaveDeltaRows(12))
	t.Logf("HaveDeltaRows(12) failure message:\n%s", msg)
	g.Expect(ok).To(BeFalse())
	g.Expect(msg).To(Equal(`Expected Delta table t-1 to have 12 row(s), found 3:
    version 1, 2 commit(s), 3 row(s) in 2 file(s)
    schema: struct<amount:double,at:timestamp,order:long>
    commits:
      v0 WRITE: +2 row(s) in 1 file(s), schema changed, txn dest-1=1
      v1 WRITE: +1 row(s) in 1 file(s), txn dest-1=2
    rows:
      3 row(s):
        {"amount":10.5,"at":"2026-11-29T10:00:00Z","order":0}
        {"amount":11.5,"at":"2026-11-29T10:01:00Z","order":1}
        {"amount":null,"at":null,"order":2}`))

	// A wrong actual is an error, not a mismatch; so is a nil snapshot.
	_, err := fabrictest.HaveDeltaRows(1).Match("orders")
	g.Expect(err).To(MatchError(ContainSubstring("HaveDeltaRows expects a *delta.Snapshot (Table.Snapshot, Table.TrySnapshot) or a fabrictest.Table, got string")))
	_, err = fabrictest.HaveDeltaRows(1).Match((*delta.Snapshot)(nil))
	g.Expect(err).To(MatchError(ContainSubstring("the snapshot is nil")))
}

func TestHaveCommitsAndVersion(t *testing.T) {
	g := NewWithT(t)
	snap := sampleSnapshot()
	g.Expect(snap).To(fabrictest.HaveCommits(2))
	g.Expect(snap).To(fabrictest.HaveVersion(1))
	g.Expect(snap).NotTo(fabrictest.HaveVersion(0))

	ok, msg := failure(snap, fabrictest.HaveCommits(1))
	g.Expect(ok).To(BeFalse())
	g.Expect(msg).To(HavePrefix("Expected Delta table t-1 to have 1 commit(s), found 2:\n    version 1, 2 commit(s)"))
	ok, msg = failure(snap, fabrictest.HaveVersion(5))
	g.Expect(ok).To(BeFalse())
	g.Expect(msg).To(HavePrefix("Expected Delta table t-1 to be at version 5, found version 1:\n"))

	m := fabrictest.HaveVersion(1)
	g.Expect(m.Match(snap)).To(BeTrue())
	g.Expect(m.NegatedFailureMessage(snap)).To(HavePrefix("Expected Delta table t-1 to be anything but at version 1, found version 1"))
}

func TestHaveColumns(t *testing.T) {
	g := NewWithT(t)
	snap := sampleSnapshot()
	g.Expect(snap).To(fabrictest.HaveColumns("order", "amount", "at"))
	g.Expect(snap).NotTo(fabrictest.HaveColumns("order", "amount"))

	ok, msg := failure(snap, fabrictest.HaveColumns("order", "amount", "currency"))
	t.Logf("HaveColumns failure message:\n%s", msg)
	g.Expect(ok).To(BeFalse())
	g.Expect(msg).To(HavePrefix(`Expected the columns of Delta table t-1 to be exactly (in any order) [order amount currency], found [amount at order]
    missing: currency
    not expected: at
    version 1, 2 commit(s), 3 row(s) in 2 file(s)`))

	// Rows (a Kusto table's) have the columns their rows have.
	rows := fabrictest.Rows{{"kind": "a", "n": json.Number("1")}, {"kind": "b", "note": ""}}
	g.Expect(rows).To(fabrictest.HaveColumns("kind", "n", "note"))
	ok, msg = failure(rows, fabrictest.HaveColumns("kind"))
	g.Expect(ok).To(BeFalse())
	g.Expect(msg).To(ContainSubstring("Expected the columns of rows to be exactly (in any order) [kind], found [kind n note]\n    not expected: n, note\n    2 row(s):"))

	_, err := fabrictest.HaveColumns("a").Match(42)
	g.Expect(err).To(MatchError("HaveColumns expects a *delta.Snapshot, a fabrictest.Table or fabrictest.Rows, got int"))
}

func TestHaveRowsMatching(t *testing.T) {
	g := NewWithT(t)
	snap := sampleSnapshot()

	// Numbers by value, times against RFC 3339 text, nil against null, a
	// subset of the columns, in any order, matchers as values.
	g.Expect(snap).To(fabrictest.HaveRowsMatching(
		map[string]any{"order": 2, "amount": nil},
		map[string]any{"order": json.Number("1"), "at": "2026-11-29T11:01:00+01:00"},
		map[string]any{"order": 0.0, "amount": BeNumerically(">", 10)},
	))
	g.Expect(snap).NotTo(fabrictest.HaveRowsMatching(map[string]any{"order": 2}), "three rows, one expected")
	g.Expect(snap).NotTo(fabrictest.HaveRowsMatching(
		map[string]any{"order": 0}, map[string]any{"order": 0}, map[string]any{"order": 2}), "each expected row needs its own row")

	// Pairing is a matching, not first come first served.
	rows := fabrictest.Rows{{"a": 1, "b": 1}, {"a": 1, "b": 2}}
	g.Expect(rows).To(fabrictest.HaveRowsMatching(map[string]any{"a": 1}, map[string]any{"b": 1}))

	// Nested objects like rows, arrays element by element, strings exactly.
	kusto := []map[string]any{{"kind": "a,b", "payload": map[string]any{"x": json.Number("1"), "y": []any{"p", json.Number("2")}}}}
	g.Expect(kusto).To(fabrictest.HaveRowsMatching(map[string]any{"kind": "a,b", "payload": map[string]any{"y": []any{"p", 2}}}))
	g.Expect(kusto).NotTo(fabrictest.HaveRowsMatching(map[string]any{"kind": "a, b"}))

	ok, msg := failure(snap, fabrictest.HaveRowsMatching(
		map[string]any{"order": 0, "amount": 10.5},
		map[string]any{"order": 1, "amount": 99},
	))
	t.Logf("HaveRowsMatching failure message:\n%s", msg)
	g.Expect(ok).To(BeFalse())
	g.Expect(msg).To(ContainSubstring(`Expected 2 row(s) matching (in any order, on the fields given):
    {"amount": 10.5, "order": 0}
    {"amount": 99, "order": 1}
no row matched:
    {"amount": 99, "order": 1}
rows not expected:
    {"amount":11.5,"at":"2026-11-29T10:01:00Z","order":1}
    {"amount":null,"at":null,"order":2}
found:
    Delta table t-1
    version 1,`))

	_, err := fabrictest.HaveRowsMatching().Match("x")
	g.Expect(err).To(MatchError(ContainSubstring("HaveRowsMatching expects fabrictest.Rows, []map[string]any, a *delta.Snapshot or a fabrictest.Table, got string")))
}

// Rows print one JSON object per line in gomega's own matchers too.
func TestRowsGomegaString(t *testing.T) {
	var msg string
	g := NewGomega(func(message string, _ ...int) { msg = message })
	g.Expect(fabrictest.Rows{{"kind": "a,b", "n": 1}}).To(BeEmpty())
	if want := `{"kind":"a,b","n":1}`; !strings.Contains(msg, want) {
		t.Fatalf("BeEmpty message does not show the rows as JSON (%s):\n%s", want, msg)
	}
}
