package fabrictest_test

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	. "github.com/onsi/gomega"

	"github.com/fabrictest/fabrictest/fabrictest"
)

// Start is what a test calls: one line for the emulator and a Kafka broker,
// torn down by t.Cleanup. (Example functions get no *testing.T, so this
// one only compiles; the package doc's test, run by the docs' own test,
// calls Start, and the examples below use New, which runs anywhere.)
func ExampleStart() {
	testOrders := func(t *testing.T) {
		env := fabrictest.Start(t) // Kafka: FABRICTEST_KAFKA, else a container
		es := env.Workspace("sales").Eventstream("orders")

		es.Produce(fabrictest.Event{Key: "o-1", Value: map[string]any{"amount": 12.5}})

		g := NewWithT(t)
		g.Expect(es.Records()).To(fabrictest.HaveRecordsWithValues(map[string]any{"amount": 12.5}))
	}
	_ = testOrders
}

// SharedKafka starts one Kafka container for the whole test binary.
func ExampleSharedKafka() {
	// In a _test.go file of your package:
	//
	//	func TestMain(m *testing.M) { os.Exit(fabrictest.SharedKafka(m)) }
	var m *testing.M
	if m != nil {
		os.Exit(fabrictest.SharedKafka(m))
	}
}

// New boots an environment outside a test. Here on the embedded broker, so
// the example runs without Docker.
func ExampleNew() {
	env, err := fabrictest.New(context.Background(), fabrictest.WithKafka("embedded"), fabrictest.WithPartitions(1))
	if err != nil {
		panic(err)
	}
	defer env.Close()

	es := env.Workspace("sales").Eventstream("orders")
	res := es.Produce(
		fabrictest.Event{Key: "o-1", Value: map[string]any{"amount": 12.5}},
		fabrictest.Event{Key: "o-2", Value: map[string]any{"amount": 7}},
	)
	fmt.Println("produced", res.Produced, "to the eventstream's topic:", res.Topic == es.Topic)

	// Through the Kafka protocol, as a notebook reads it.
	for _, r := range es.Records() {
		fmt.Printf("%s %s\n", r.Key, r.Value)
	}
	// Output:
	// produced 2 to the eventstream's topic: true
	// o-1 {"amount":12.5}
	// o-2 {"amount":7}
}

// Try… helpers return an *APIError with Fabric's errorCode, for tests that
// assert failures.
func ExampleEventstream_TryProduce() {
	env, err := fabrictest.New(context.Background(), fabrictest.WithKafka("embedded"))
	if err != nil {
		panic(err)
	}
	defer env.Close()

	ws := env.Workspace("sales")
	es := ws.Eventstream("orders")
	ws.Grant("viewer", fabrictest.Viewer)

	_, err = fabrictest.As(es, "viewer").TryProduce(map[string]any{"amount": 1})
	fmt.Println(fabrictest.ErrorCode(err), err.(*fabrictest.APIError).Status)

	bad := env.WorkspaceRef(es.WorkspaceID).EventstreamRef("00000000-0000-0000-0000-00000000dead", es.DatasourceID)
	_, err = bad.TryResolve()
	fmt.Println(fabrictest.ErrorCode(err))
	// Output:
	// InsufficientPrivileges 403
	// ItemNotFound
}

// Consume reads through the emulator's HTTP route, with Kafka's columns.
func ExampleEventstream_Consume() {
	env, err := fabrictest.New(context.Background(), fabrictest.WithKafka("embedded"), fabrictest.WithPartitions(1))
	if err != nil {
		panic(err)
	}
	defer env.Close()

	es := env.Workspace("sales").Eventstream("orders")
	es.ProduceJSON("a", "b", "c")
	for _, r := range es.Consume(fabrictest.StartingOffsets(`{"0":1}`)) {
		fmt.Println(r.Partition, r.Offset, string(r.Value))
	}
	// Output:
	// 0 1 "b"
	// 0 2 "c"
}

// Matchers say what they found when they fail.
func ExampleHaveRecordCount() {
	g := NewGomega(func(message string, _ ...int) { fmt.Println(message) })
	records := fabrictest.Records{
		{Topic: "orders", Partition: 1, Offset: 0, Key: []byte("o-1"), Value: []byte(`{"amount":12.5}`)},
	}
	g.Expect(records).To(fabrictest.HaveRecordCount(2))
	// Output:
	// Expected 2 record(s), found 1:
	//     1 record(s) in topic orders:
	//       p1@0 key="o-1" value={"amount":12.5}
}

// Workspace.Eventstream creates the item with its DefaultStream and Kafka
// topic; its ids are fields, for the code under test.
func ExampleWorkspace_Eventstream() {
	env, err := fabrictest.New(context.Background(), fabrictest.WithKafka("embedded"))
	if err != nil {
		panic(err)
	}
	defer env.Close()

	es := env.Workspace("sales").Eventstream("orders")
	fmt.Println(es.Name, es.Topic == es.ID+"."+es.DatasourceID)
	src := es.Resolve() // what the notebook's eventstream.* options resolve to
	fmt.Println(src.Topic == es.Topic, len(src.Brokers()) > 0)
	// Output:
	// orders true
	// true true
}

// BindLakehouse adds a Lakehouse destination, whose Delta table the
// produce answers after writing. HaveRowsMatching compares rows by meaning
// and, when it fails, names the rows it missed and those it found.
func ExampleEventstream_BindLakehouse() {
	env, err := fabrictest.New(context.Background(), fabrictest.WithKafka("embedded"))
	if err != nil {
		panic(err)
	}
	defer env.Close()

	ws := env.Workspace("sales")
	es := ws.Eventstream("orders")
	lake := ws.Lakehouse("sales")
	es.BindLakehouse(lake, "orders")

	es.ProduceJSON(map[string]any{"id": "o-1", "amount": 12.5})

	g := NewGomega(func(message string, _ ...int) { fmt.Println(message) })
	g.Expect(lake.Table("orders")).To(fabrictest.HaveRowsMatching(map[string]any{"id": "o-1", "amount": 12.5}))
	g.Expect(lake.Table("orders").Rows()).To(fabrictest.HaveRowsMatching(map[string]any{"id": "o-2"}))
	// Output:
	// Expected 1 row(s) matching (in any order, on the fields given):
	//     {"id": "o-2"}
	// no row matched:
	//     {"id": "o-2"}
	// rows not expected:
	//     {"amount":12.5,"id":"o-1"}
	// found:
	//     1 row(s):
	//       {"amount":12.5,"id":"o-1"}
}

// Waiting: a Try… method value drops into gomega's Eventually, which polls
// until the matcher succeeds or the timeout passes, then prints what the
// matcher last found.
func ExampleEventstream_TryRecords() {
	env, err := fabrictest.New(context.Background(), fabrictest.WithKafka("embedded"), fabrictest.WithPartitions(1))
	if err != nil {
		panic(err)
	}
	defer env.Close()

	es := env.Workspace("sales").Eventstream("orders")
	done := make(chan struct{})
	go func() { // the code under test, producing while the test waits
		defer close(done)
		es.ProduceJSON("a", "b", "c")
	}()

	g := NewGomega(func(message string, _ ...int) { fmt.Println(message) })
	g.Eventually(es.TryRecords).WithTimeout(5 * time.Second).Should(fabrictest.HaveRecordCount(3))
	// and no more arrive: each event was written once.
	g.Consistently(es.TryRecords).WithTimeout(100 * time.Millisecond).Should(fabrictest.HaveRecordCount(3))
	fmt.Println(es.Records().Values())
	<-done
	// Output:
	// ["a" "b" "c"]
}
