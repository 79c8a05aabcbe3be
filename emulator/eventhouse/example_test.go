package eventhouse_test

import (
	"context"
	"fmt"

	"github.com/fabrictest/fabrictest/emulator/eventhouse"
	"github.com/fabrictest/fabrictest/emulator/rows"
	"github.com/fabrictest/fabrictest/kustofake"
)

// Ingest Kafka record values into an Eventhouse table, retry with the same
// tag, and read the table back.
func ExampleClient_Ingest() {
	engine := kustofake.New() // or kustainer: http://127.0.0.1:8080
	defer engine.Close()

	c, err := eventhouse.New(engine.URL())
	if err != nil {
		panic(err)
	}
	defer c.Close()
	ctx := context.Background()

	batch := []rows.Row{
		rows.FromValue([]byte(`{"kind": "click", "n": 1, "where": {"page": "/"}}`)),
		rows.FromValue([]byte(`{"kind": "view, with \"quotes\"", "n": 2.5}`)),
	}
	for range 2 { // a retry with the same tag adds nothing
		if err := c.Ingest(ctx, "telemetry", "kind", batch, "dest-1:0:0-1"); err != nil {
			panic(err)
		}
	}
	n, _ := c.Count(ctx, "telemetry", "kind")
	fmt.Println("rows:", n)

	got, _ := c.Rows(ctx, "telemetry", "kind")
	for _, r := range got {
		fmt.Printf("%s | %v | %v\n", r["kind"], r["n"], r["where"])
	}
	// Output:
	// rows: 2
	// click | 1 | map[page:/]
	// view, with "quotes" | 2.5 | <nil>
}

// Every name is quoted, whatever it is.
func ExampleQuoteName() {
	fmt.Println(eventhouse.QuoteName("kind"))
	fmt.Println(eventhouse.QuoteName("it's"))
	// Output:
	// ['kind']
	// ['it\'s']
}

// Field names Kusto cannot hold are mapped to names it can.
func ExampleColumnName() {
	fmt.Println(eventhouse.ColumnName("kind"))
	fmt.Println(eventhouse.ColumnName("@timestamp"))
	fmt.Println(eventhouse.ColumnName("user:id"))
	// Output:
	// kind
	// _timestamp
	// user_id
}
