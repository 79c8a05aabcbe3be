package delta_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/fabrictest/fabrictest/emulator/delta"
	"github.com/fabrictest/fabrictest/emulator/rows"
)

// exampleDir returns a fresh table root and a function that removes it.
func exampleDir() (string, func()) {
	tmp, err := os.MkdirTemp("", "delta-example-")
	if err != nil {
		log.Fatal(err)
	}
	return filepath.Join(tmp, "events"), func() { os.RemoveAll(tmp) }
}

func ExampleTable_Append() {
	dir, cleanup := exampleDir()
	defer cleanup()
	ctx := context.Background()

	tbl, err := delta.Open(dir)
	if err != nil {
		log.Fatal(err)
	}
	v, err := tbl.Append(ctx, []rows.Row{
		rows.FromValue([]byte(`{"device":"d1","temp":21.5,"at":"2024-05-01T10:00:00Z"}`)),
		rows.FromValue([]byte(`{"device":"d2","temp":19,"at":"2024-05-01T10:00:01Z"}`)),
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(v, tbl.Schema())

	// A new field becomes a new nullable column.
	v, err = tbl.Append(ctx, []rows.Row{rows.FromValue([]byte(`{"device":"d1","temp":30,"alert":true}`))})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(v, tbl.Schema())
	// Output:
	// 0 struct<at:timestamp,device:string,temp:double>
	// 1 struct<at:timestamp,device:string,temp:double,alert:boolean>
}

func ExampleSchemaConflictError() {
	dir, cleanup := exampleDir()
	defer cleanup()
	ctx := context.Background()

	tbl, err := delta.Open(dir)
	if err != nil {
		log.Fatal(err)
	}
	if _, err := tbl.Append(ctx, []rows.Row{rows.FromValue([]byte(`{"qty":3}`))}); err != nil {
		log.Fatal(err)
	}
	_, err = tbl.Append(ctx, []rows.Row{rows.FromValue([]byte(`{"qty":"three"}`))})
	var conflict *delta.SchemaConflictError
	if errors.As(err, &conflict) {
		fmt.Println(conflict.Field, conflict.TableType, conflict.EventType)
	}
	fmt.Println(err)
	fmt.Println("version", tbl.Version())
	// Output:
	// qty long string
	// append: field "qty" is long in the table but string in row 0 of the batch
	// version 0
}

func ExampleTable_TxnVersion() {
	dir, cleanup := exampleDir()
	defer cleanup()
	ctx := context.Background()

	tbl, err := delta.Open(dir)
	if err != nil {
		log.Fatal(err)
	}
	// A drain writes offsets 0..1 and records the last one with the rows.
	batch := []rows.Row{rows.FromValue([]byte(`{"n":0}`)), rows.FromValue([]byte(`{"n":1}`))}
	if _, err := tbl.Append(ctx, batch, delta.Txn{AppID: "destination-1", Version: 1}); err != nil {
		log.Fatal(err)
	}

	// After a crash before the Kafka offset commit, it restarts: the table
	// says where it stopped, and a replay of the same batch writes nothing.
	restarted, err := delta.Open(dir)
	if err != nil {
		log.Fatal(err)
	}
	last, ok, err := restarted.TxnVersion("destination-1")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(last, ok)
	_, err = restarted.Append(ctx, batch, delta.Txn{AppID: "destination-1", Version: 1})
	fmt.Println(errors.Is(err, delta.ErrTxnCommitted))
	// Output:
	// 1 true
	// true
}

func ExampleReadTable() {
	dir, cleanup := exampleDir()
	defer cleanup()
	ctx := context.Background()

	tbl, err := delta.Open(dir)
	if err != nil {
		log.Fatal(err)
	}
	for _, value := range []string{`{"id":1,"tags":["a","b"],"pos":{"x":1.5}}`, `not json`} {
		if _, err := tbl.Append(ctx, []rows.Row{rows.FromValue([]byte(value))}); err != nil {
			log.Fatal(err)
		}
	}

	snap, err := delta.ReadTable(dir)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(snap.Version, snap.Schema)
	for _, r := range snap.Rows {
		fmt.Println(r["id"], r["tags"], r["pos"], r["value"])
	}
	for _, c := range snap.Commits {
		fmt.Println(c.Version, c.Operation, c.AddedRows, c.SchemaChanged)
	}
	// Output:
	// 1 struct<id:long,pos:struct<x:double>,tags:array<string>,value:string>
	// 1 [a b] map[x:1.5] <nil>
	// <nil> <nil> <nil> not json
	// 0 WRITE 1 true
	// 1 WRITE 1 true
}

func ExampleInferSchema() {
	schema, err := delta.InferSchema([]rows.Row{
		rows.FromValue([]byte(`{"id":1,"price":9.5,"at":"2024-05-01T10:00:00+02:00","mixed":[1,"x"]}`)),
		rows.FromValue([]byte(`{"id":2,"price":10,"note":null,"dims":{"w":1}}`)),
	})
	if err != nil {
		log.Fatal(err)
	}
	for _, f := range schema.Fields {
		fmt.Println(f.Name, f.Type)
	}
	// Output:
	// at timestamp
	// dims struct<w:long>
	// id long
	// mixed array<string>
	// note string
	// price double
}

func ExampleTable_AppendReport() {
	dir, cleanup := exampleDir()
	defer cleanup()
	ctx := context.Background()

	tbl, err := delta.Open(dir, delta.WithSchemaMode(delta.SchemaEnforce))
	if err != nil {
		log.Fatal(err)
	}
	// The first record makes the schema, its columns in the record's
	// member order; "b" is not a column, so it is dropped and reported.
	records := [][]byte{[]byte(`{"id":1,"a":"x"}`), []byte(`{"id":2,"b":"y"}`)}
	order := func(row int) *delta.FieldOrder { return delta.JSONFieldOrder(records[row]) }
	r, err := tbl.AppendReport(ctx, []rows.Row{rows.FromValue(records[0]), rows.FromValue(records[1])},
		delta.WithFieldOrder(order), delta.WithTxn(delta.Txn{AppID: "ingest", Version: 1}))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(r.Version, tbl.Schema(), r.Dropped)

	// 1.5 does not go into a long column without loss: the batch names
	// the row, and the caller appends the rest.
	batch := []rows.Row{rows.FromValue([]byte(`{"id":1.5}`)), rows.FromValue([]byte(`{"id":3.0}`))}
	_, err = tbl.AppendReport(ctx, batch)
	var rejected *delta.RowsError
	if errors.As(err, &rejected) {
		fmt.Println(rejected.Errs[0])
	}
	r, err = tbl.AppendReport(ctx, batch[1:])
	fmt.Println(r.Version, err)
	// Output:
	// 0 struct<id:long,a:string> [{b 1 "y"}]
	// field "id" of row 0 of the batch holds 1.5, which its long column (BigInt) cannot take without loss
	// 1 <nil>
}
