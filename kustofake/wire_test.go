package kustofake_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/Azure/azure-kusto-go/azkustodata/errors"
	v1 "github.com/Azure/azure-kusto-go/azkustodata/query/v1"

	"github.com/fabrictest/fabrictest/kustofake"
)

// post sends a raw Kusto request and returns status, headers and body.
func post(t *testing.T, srv *kustofake.Server, path, db, csl string) (int, http.Header, []byte) {
	t.Helper()
	body, _ := json.Marshal(map[string]any{"db": db, "csl": csl, "properties": map[string]any{"Options": map[string]any{}}})
	req, err := http.NewRequest(http.MethodPost, srv.URL()+path, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json; charset=utf-8")
	req.Header.Set("x-ms-client-request-id", "test;"+t.Name())
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("POST %s: %v", path, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, b
}

// mustMgmt runs a management command over raw HTTP and fails on non-200.
func mustMgmt(t *testing.T, srv *kustofake.Server, db, csl string) []byte {
	t.Helper()
	status, _, body := post(t, srv, kustofake.PathMgmt, db, csl)
	if status != http.StatusOK {
		t.Fatalf("%s: %d %s", csl, status, body)
	}
	return body
}

func seed(t *testing.T, srv *kustofake.Server, db string, n int) {
	t.Helper()
	mustMgmt(t, srv, db, ".create-merge table ['T'] (['id']:long, ['s']:string, ['d']:dynamic, ['ts']:datetime)")
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "%d,\"s%d\",\"{\"\"i\"\":%d}\",2024-01-02T03:04:05Z\n", i, i, i)
	}
	mustMgmt(t, srv, db, ".ingest inline into table ['T'] <|\n"+b.String())
}

func TestWireMetadata(t *testing.T) {
	srv := kustofake.Start(t)
	resp, err := http.Get(srv.URL() + kustofake.PathMetadata)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 || string(b) != `{"AzureAD":null,"dSTS":null}` {
		t.Fatalf("metadata = %d %s", resp.StatusCode, b)
	}
}

func TestWireV2Frames(t *testing.T) {
	srv := kustofake.Start(t)
	seed(t, srv, "db", 2500)
	status, h, body := post(t, srv, kustofake.PathQueryV2, "db", "T | where s != 'none' | take 2400")
	if status != 200 {
		t.Fatalf("status %d: %s", status, body)
	}
	if ct := h.Get("Content-Type"); ct != "application/json; charset=utf-8" {
		t.Errorf("Content-Type = %q", ct)
	}
	if h.Get("x-ms-client-request-id") != "test;"+t.Name() || h.Get("x-ms-activity-id") == "" {
		t.Errorf("headers = %v", h)
	}
	lines := strings.Split(strings.TrimSuffix(string(body), "\n"), "\n")
	if lines[len(lines)-1] != "]" {
		t.Fatalf("last line %q, want ]", lines[len(lines)-1])
	}
	const header = `[{"FrameType":"DataSetHeader","IsProgressive":false,"Version":"v2.0","IsFragmented":true,"ErrorReportingPlacement":"EndOfTable"}`
	if lines[0] != header {
		t.Fatalf("first line\n%s\nwant\n%s", lines[0], header)
	}
	var kinds []string
	rows := 0
	for i, line := range lines[:len(lines)-1] {
		if i > 0 && line[0] != ',' {
			t.Fatalf("line %d starts with %q", i, line[0])
		}
		if !strings.HasPrefix(line[1:], `{"FrameType":"`) {
			t.Fatalf("line %d: FrameType is not the first property: %.80s", i, line)
		}
		var f struct {
			FrameType, TableKind string
			TableID              int `json:"TableId"`
			RowCount             int
			Rows                 [][]any
		}
		if err := json.Unmarshal([]byte(line[1:]), &f); err != nil {
			t.Fatalf("line %d: %v", i, err)
		}
		k := f.FrameType
		if f.TableKind != "" {
			k += ":" + f.TableKind
		}
		if f.FrameType == "TableFragment" {
			rows += len(f.Rows)
		}
		if f.FrameType == "TableCompletion" && f.RowCount != 2400 {
			t.Errorf("RowCount = %d", f.RowCount)
		}
		kinds = append(kinds, k)
	}
	want := []string{"DataSetHeader", "DataTable:QueryProperties", "TableHeader:PrimaryResult",
		"TableFragment", "TableFragment", "TableFragment", "TableCompletion",
		"DataTable:QueryCompletionInformation", "DataSetCompletion"}
	if strings.Join(kinds, " ") != strings.Join(want, " ") {
		t.Fatalf("frames %v\nwant   %v", kinds, want)
	}
	if rows != 2400 {
		t.Fatalf("fragment rows = %d", rows)
	}
	if !strings.Contains(string(body), `["0","s0"`) && !strings.Contains(string(body), `[0,"s0",{"i":0},"2024-01-02T03:04:05.0000000Z"]`) {
		t.Fatalf("row encoding: %.400s", body)
	}
}

func TestWireV1Mgmt(t *testing.T) {
	srv := kustofake.Start(t)
	body := mustMgmt(t, srv, "db", ".create-merge table ['T'] (['a']:string, ['n']:long, ['b']:bool)")
	var v struct {
		Tables []struct {
			TableName string
			Columns   []map[string]string
			Rows      [][]any
		}
	}
	if err := json.Unmarshal(body, &v); err != nil {
		t.Fatal(err)
	}
	if len(v.Tables) != 1 || v.Tables[0].TableName != "Table_0" {
		t.Fatalf("tables = %s", body)
	}
	cols := v.Tables[0].Columns
	if len(cols) != 5 || cols[0]["ColumnName"] != "TableName" || cols[0]["DataType"] != "String" || cols[0]["ColumnType"] != "string" {
		t.Fatalf("columns = %v", cols)
	}
	schema := v.Tables[0].Rows[0][1].(string)
	const want = `{"Name":"T","OrderedColumns":[{"Name":"a","Type":"System.String","CslType":"string"},{"Name":"n","Type":"System.Int64","CslType":"long"},{"Name":"b","Type":"System.SByte","CslType":"bool"}]}`
	if schema != want {
		t.Fatalf("schema\n%s\nwant\n%s", schema, want)
	}
}

func TestWireV1Query(t *testing.T) {
	srv := kustofake.Start(t)
	seed(t, srv, "db", 3)
	status, _, body := post(t, srv, kustofake.PathQueryV1, "db", "T | project id, s")
	if status != 200 {
		t.Fatalf("%d %s", status, body)
	}
	// The SDK's own v1 reader: the last table must be the TableOfContents and
	// QueryStatus must convert to its struct.
	ds, err := v1.NewDatasetFromReader(context.Background(), errors.OpQuery, io.NopCloser(bytes.NewReader(body)))
	if err != nil {
		t.Fatalf("SDK v1 reader: %v", err)
	}
	if len(ds.Tables()) != 1 || len(ds.Tables()[0].Rows()) != 3 || len(ds.Index()) != 3 || len(ds.Status()) != 1 {
		t.Fatalf("tables=%d index=%v status=%v", len(ds.Tables()), ds.Index(), ds.Status())
	}
	if s, _ := ds.Tables()[0].Rows()[2].StringByName("s"); s != "s2" {
		t.Fatalf("row 2 s = %q", s)
	}

	// GET with db and csl in the query string is served too.
	resp, err := http.Get(srv.URL() + kustofake.PathQueryV1 + "?db=db&csl=" + url.QueryEscape("T | count"))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(string(b), `"Rows":[[3]]`) {
		t.Fatalf("GET count: %d %s", resp.StatusCode, b)
	}
}

func TestWireErrorBody(t *testing.T) {
	srv := kustofake.Start(t)
	status, h, body := post(t, srv, kustofake.PathMgmt, "db", ".create table Events (ts:datetime, kind:string)")
	if status != http.StatusBadRequest || !strings.HasPrefix(h.Get("Content-Type"), "application/json") {
		t.Fatalf("%d %v", status, h)
	}
	var e struct {
		Error struct {
			Code       string         `json:"code"`
			Message    string         `json:"message"`
			Type       string         `json:"@type"`
			Detail     string         `json:"@message"`
			Context    map[string]any `json:"@context"`
			Permanent  *bool          `json:"@permanent"`
			InnerError map[string]any `json:"innererror"`
		} `json:"error"`
	}
	if err := json.Unmarshal(body, &e); err != nil {
		t.Fatalf("%v: %s", err, body)
	}
	x := e.Error
	if x.Code != "General_BadRequest" || x.Type != "Kusto.Data.Exceptions.KustoBadRequestException" ||
		x.Detail != "Request is invalid and cannot be processed: Syntax error: SYN0002: A recognition error occurred. [line:position=1:35]" ||
		x.Permanent == nil || !*x.Permanent || x.InnerError["code"] != "SYN0002" || x.Context["clientRequestId"] != "test;"+t.Name() {
		t.Fatalf("error body: %s", body)
	}
	if !strings.HasPrefix(string(body), `{"error":{"code":`) {
		t.Fatalf("body shape: %.60s", body)
	}
}

func TestWireRefusals(t *testing.T) {
	srv := kustofake.Start(t, kustofake.WithMaxRequestBytes(2048))
	cases := []struct {
		method, path, body string
		status             int
		contains           string
	}{
		{http.MethodGet, kustofake.PathMgmt, "", http.StatusMethodNotAllowed, "MethodNotAllowed"},
		{http.MethodGet, "/v1/rest/ingest/db/T", "", http.StatusNotFound, "not a Kusto endpoint"},
		{http.MethodPost, kustofake.PathQueryV2, `{"db":"db","csl":".show tables"}`, http.StatusBadRequest, "Control commands"},
		{http.MethodPost, kustofake.PathMgmt, `{"db":"db","csl":"T | count"}`, http.StatusBadRequest, kustofake.NotSupported},
		{http.MethodPost, kustofake.PathMgmt, `{"db":"db"}`, http.StatusBadRequest, "no query or command text"},
		{http.MethodPost, kustofake.PathMgmt, `{"db":`, http.StatusBadRequest, "not valid JSON"},
		{http.MethodPost, kustofake.PathMgmt, `{"db":"db","csl":"` + strings.Repeat("x", 3000) + `"}`, http.StatusRequestEntityTooLarge, "PayloadTooLarge"},
	}
	for _, c := range cases {
		req, _ := http.NewRequest(c.method, srv.URL()+c.path, strings.NewReader(c.body))
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != c.status || !strings.Contains(string(b), c.contains) || !json.Valid(b) {
			t.Errorf("%s %s %.40s: %d %s", c.method, c.path, c.body, resp.StatusCode, b)
		}
	}
}
