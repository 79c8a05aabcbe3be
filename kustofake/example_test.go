package kustofake_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/Azure/azure-kusto-go/azkustodata"
	"github.com/Azure/azure-kusto-go/azkustodata/kql"

	"github.com/fabrictest/fabrictest/kustofake"
)

// The stand-in speaks the Kusto REST protocol; the official SDK talks to it
// with no credentials.
func Example() {
	srv := kustofake.New()
	defer srv.Close()

	client, err := azkustodata.New(azkustodata.NewConnectionStringBuilder(srv.URL()))
	if err != nil {
		panic(err)
	}
	defer client.Close()
	ctx := context.Background()

	for _, cmd := range []string{
		".create-merge table ['Events'] (['kind']:string, ['n']:long)",
		".ingest inline into table ['Events'] <|\nclick,1\n\"view, with comma\",2",
	} {
		if _, err := client.Mgmt(ctx, "telemetry", kql.New("").AddUnsafe(cmd)); err != nil {
			panic(err)
		}
	}
	ds, err := client.Query(ctx, "telemetry", kql.New("['Events'] | where ['n'] == 2 | project ['kind']"))
	if err != nil {
		panic(err)
	}
	for _, row := range ds.Tables()[0].Rows() {
		kind, _ := row.StringByName("kind")
		fmt.Println(kind)
	}

	// A bare keyword where a name belongs is refused as the real parser does.
	_, err = client.Mgmt(ctx, "telemetry", kql.New(".create-merge table Events (kind:string)"))
	fmt.Println(strings.Contains(err.Error(), "SYN0002"))
	// Output:
	// view, with comma
	// true
}

// Faults: fail the next command, then recover.
func ExampleServer_FailNext() {
	srv := kustofake.New()
	defer srv.Close()
	client, _ := azkustodata.New(azkustodata.NewConnectionStringBuilder(srv.URL()))
	defer client.Close()

	srv.FailNext(1)
	_, err := client.Mgmt(context.Background(), "db", kql.New(".show tables"))
	fmt.Println(strings.Contains(err.Error(), "503 Service Unavailable"))
	_, err = client.Mgmt(context.Background(), "db", kql.New(".show tables"))
	fmt.Println(err)
	// Output:
	// true
	// <nil>
}
