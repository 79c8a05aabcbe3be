package fabrictest_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	. "github.com/onsi/gomega"

	"github.com/fabrictest/fabrictest/fabrictest"
)

func TestLakehouseDestination(t *testing.T) {
	t.Parallel()
	g := NewWithT(t)
	// One partition, so the rows keep their produce order.
	env := fabrictest.Start(t, fabrictest.WithPartitions(1))
	ws := env.Workspace("sales")
	es := ws.Eventstream("orders")
	lh := ws.Lakehouse("sales_lh")
	g.Expect(lh.TablesPath).To(HaveSuffix("/Tables"))
	g.Expect(lh.TablesPath).To(BeADirectory())
	g.Expect(lh.Tables()).To(BeEmpty())

	dest := es.BindLakehouse(lh, "orders")
	g.Expect(dest.Type).To(Equal("Lakehouse"))
	g.Expect(dest.Table).To(Equal("orders"))
	g.Expect(dest.ItemID).To(Equal(lh.ID))
	g.Expect(es.BindLakehouse(lh, "orders").ID).To(Equal(dest.ID), "binding the same table again is idempotent")
	g.Expect(dest.String()).To(Equal("Lakehouse destination " + dest.ID + ` → table "orders" of item ` + lh.ID + " (Running, 0 delivered)"))

	// Read-your-writes: the produce answers once the table has the rows.
	es.ProduceJSON(
		map[string]any{"order": 1, "amount": 12.5, "currency": "EUR"},
		map[string]any{"order": 2, "amount": 7, "currency": "USD"},
	)
	table := lh.Table("orders")
	g.Expect(table).To(fabrictest.HaveDeltaRows(2))
	// One produce is one Kafka batch only when the producer sends both
	// records together; a loaded machine can split them into two, hence
	// two commits. What follows counts from the version reached here.
	first := table.Snapshot().Version
	g.Expect(first).To(BeNumerically("<=", 1))
	g.Expect(table).To(fabrictest.HaveColumns("order", "amount", "currency"))
	g.Expect(table.Rows()).To(fabrictest.HaveRowsMatching(
		map[string]any{"order": 1, "amount": 12.5, "currency": "EUR"},
		map[string]any{"order": 2, "amount": 7, "currency": "USD"},
	))
	g.Expect(table.Schema().String()).To(Equal("struct<amount:double,currency:string,order:long>"))

	// A second produce is a second version; a field the table has no
	// column for is not written (Fabric's schema enforcement, fabric-docs
	// "Add a lakehouse destination to an eventstream").
	es.ProduceJSON(map[string]any{"order": 3, "amount": 1, "currency": "EUR", "note": "gift"})
	g.Expect(table.Snapshot()).To(fabrictest.HaveVersion(first + 1))
	versions := table.Versions()
	g.Expect(versions).To(HaveLen(int(first) + 2))
	g.Expect(versions[first+1].AddedRows).To(BeEquivalentTo(1))
	g.Expect(versions[first+1].SchemaChanged).To(BeFalse())
	g.Expect(table).To(fabrictest.HaveColumns("order", "amount", "currency"))
	g.Expect(table.Rows().Column("amount")).To(Equal([]any{12.5, 7.0, 1.0}))
	g.Expect(lh.Tables()).To(Equal([]string{"orders"}))

	// The destination reports what it delivered.
	g.Expect(dest.Refresh().Delivery.Delivered).To(BeEquivalentTo(3))
	g.Expect(es.Destinations()).To(HaveLen(1))

	// Unbound, it delivers no more.
	dest.Unbind()
	es.ProduceJSON(map[string]any{"order": 4})
	g.Expect(table).To(fabrictest.HaveDeltaRows(3))
	g.Expect(es.Destinations()).To(BeEmpty())
}

func TestLakehouseTryForms(t *testing.T) {
	t.Parallel()
	g := NewWithT(t)
	env := fabrictest.Start(t)
	ws := env.Workspace("sales")
	es := ws.Eventstream("orders")

	_, err := ws.TryLakehouse("has-dash")
	g.Expect(err).To(fabrictest.HaveErrorCode("InvalidInput"))
	lh := ws.Lakehouse("lh")
	_, err = es.TryBindLakehouse(lh, "../escape")
	g.Expect(err).To(fabrictest.HaveErrorCode("InvalidInput"))
	g.Expect(err.(*fabrictest.APIError).Status).To(Equal(400))

	// A table nothing wrote yet: the reader says so, and the matcher
	// reports the read error rather than a count.
	table := lh.Table("never")
	_, err = table.TrySnapshot()
	g.Expect(err).To(MatchError(ContainSubstring(`table "never" of lakehouse ` + lh.ID)))
	_, err = fabrictest.HaveDeltaRows(0).Match(table)
	g.Expect(err).To(HaveOccurred())
	msg := failureOf(func(tb testing.TB) { fabrictest.WithT(lh, tb).Table("never").Rows() })
	g.Expect(msg).To(HavePrefix(`fabrictest: table "never" of lakehouse`))

	// Eventually with the Try form, and what it says when it gives up.
	es.BindLakehouse(lh, "events")
	es.ProduceJSON(map[string]any{"n": 1})
	g.Eventually(lh.Table("events").TrySnapshot).WithTimeout(5 * time.Second).Should(fabrictest.HaveDeltaRows(1))
	var failed string
	gf := NewGomega(func(message string, _ ...int) { failed = message })
	gf.Eventually(lh.Table("events").TrySnapshot).WithTimeout(200 * time.Millisecond).WithPolling(50 * time.Millisecond).
		Should(fabrictest.HaveDeltaRows(2))
	t.Logf("Eventually failure message:\n%s", failed)
	g.Expect(failed).To(ContainSubstring("Timed out after"))
	g.Expect(failed).To(ContainSubstring("to have 2 row(s), found 1:"))
	g.Expect(failed).To(ContainSubstring(`{"n":1}`))
	g.Expect(strings.Count(failed, "v0 STREAMING UPDATE: +1 row(s)")).To(Equal(1))
}

// A Lakehouse destination writes a Delta table; Table reads it back.
func ExampleWorkspace_Lakehouse() {
	env, err := fabrictest.New(context.Background(), fabrictest.WithKafka("embedded"), fabrictest.WithPartitions(1))
	if err != nil {
		panic(err)
	}
	defer env.Close()

	ws := env.Workspace("sales")
	es := ws.Eventstream("orders")
	lh := ws.Lakehouse("sales")
	es.BindLakehouse(lh, "orders")
	es.ProduceJSON(map[string]any{"id": 1, "amount": 12.5}, map[string]any{"id": 2, "amount": 7})

	table := lh.Table("orders")
	fmt.Println(table.Schema())
	for _, r := range table.Rows() {
		fmt.Println(r["id"], r["amount"])
	}
	g := NewGomega(func(message string, _ ...int) { fmt.Println(message) })
	g.Expect(table).To(fabrictest.HaveDeltaRows(2))
	g.Expect(table).To(fabrictest.HaveRowsMatching(map[string]any{"id": 1, "amount": 12.5}, map[string]any{"id": 2, "amount": 7}))
	// Output:
	// struct<amount:double,id:long>
	// 1 12.5
	// 2 7
}
