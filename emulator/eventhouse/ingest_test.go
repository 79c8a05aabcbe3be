package eventhouse_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	azerrors "github.com/Azure/azure-kusto-go/azkustodata/errors"
	"github.com/Azure/azure-kusto-go/azkustodata/kql"

	"github.com/fabrictest/fabrictest/emulator/eventhouse"
	"github.com/fabrictest/fabrictest/emulator/rows"
	"github.com/fabrictest/fabrictest/kustofake"
)

const db = "telemetry"

func ctx(t *testing.T) context.Context {
	c, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return c
}

func setup(t *testing.T, srvOpts []kustofake.Option, opts ...eventhouse.Option) (*kustofake.Server, *eventhouse.Client) {
	t.Helper()
	srv := kustofake.Start(t, srvOpts...)
	c, err := eventhouse.New(srv.URL(), opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return srv, c
}

// row decodes a JSON object by the rows package rule (numbers as json.Number).
func row(t *testing.T, js string) rows.Row {
	t.Helper()
	r := rows.FromValue([]byte(js))
	if _, ok := r[rows.ValueField]; ok && len(r) == 1 && !strings.HasPrefix(strings.TrimSpace(js), `{"value"`) {
		t.Fatalf("not a JSON object: %s", js)
	}
	return r
}

// readBack reads a table through the SDK, sorted by its "id" column.
func readBack(t *testing.T, c *eventhouse.Client, table string) []map[string]any {
	t.Helper()
	got, err := c.Rows(ctx(t), db, table)
	if err != nil {
		t.Fatalf("read %s: %v", table, err)
	}
	slices.SortFunc(got, func(a, b map[string]any) int {
		x, _ := a["id"].(int64)
		y, _ := b["id"].(int64)
		return int(x - y)
	})
	return got
}

func count(t *testing.T, c *eventhouse.Client, table string) int64 {
	t.Helper()
	n, err := c.Count(ctx(t), db, table)
	if err != nil {
		t.Fatalf("count %s: %v", table, err)
	}
	return n
}

// commands lists the management commands the engine received for table T.
func commands(srv *kustofake.Server, verb string) []kustofake.Request {
	var out []kustofake.Request
	for _, r := range srv.Requests() {
		if r.Endpoint == kustofake.PathMgmt && strings.HasPrefix(r.CSL, verb) {
			out = append(out, r)
		}
	}
	return out
}

func TestIngestKeywordNames(t *testing.T) {
	srv, c := setup(t, nil)
	batch := []rows.Row{
		row(t, `{"id": 1, "kind": "click", "project": "p", "where": 1.5, "or": true, "Kind": "upper"}`),
		row(t, `{"id": 2, "kind": "view"}`),
	}
	if err := c.Ingest(ctx(t), db, "kind", batch, "b1"); err != nil {
		t.Fatal(err)
	}
	cm := commands(srv, ".create-merge")
	const want = `.create-merge table ['kind'] (['Kind']:string, ['id']:long, ['kind']:string, ['or']:bool, ['project']:string, ['where']:real)`
	if len(cm) != 1 || cm[0].CSL != want {
		t.Fatalf("create-merge\n%v\nwant\n%s", cm, want)
	}
	for _, r := range srv.Requests() {
		if strings.Contains(r.CSL, "table kind") || strings.Contains(r.CSL, "(kind") {
			t.Fatalf("bare name sent: %s", r.CSL)
		}
	}
	ing := commands(srv, ".ingest")
	if len(ing) != 1 || !strings.HasPrefix(ing[0].CSL, `.ingest inline into table ['kind'] with (tags='["ingest-by:b1"]', ingestIfNotExists='["b1"]') <|`+"\n") {
		t.Fatalf("ingest command: %.200v", ing)
	}

	got := readBack(t, c, "kind")
	if got[0]["kind"] != "click" || got[0]["Kind"] != "upper" || got[0]["where"] != 1.5 || got[0]["or"] != true || got[1]["kind"] != "view" || got[1]["or"] != nil {
		t.Fatalf("rows = %v", got)
	}
	// The quoted table is the entity a bare-safe query reaches too.
	ds, err := c.Kusto().Query(ctx(t), db, kql.New(`["kind"] | where ['kind'] == "view" | count`))
	if err != nil {
		t.Fatal(err)
	}
	if n, _ := ds.Tables()[0].Rows()[0].LongByIndex(0); *n != 1 {
		t.Fatalf("count = %d", *n)
	}
	// And the unquoted twin is what the real parser refuses: SYN0002 through
	// the SDK's error.
	_, err = c.Kusto().Mgmt(ctx(t), db, kql.New(".create-merge table Events (ts:datetime, kind:string)"))
	var he *azerrors.HttpError
	if !errors.As(err, &he) || he.StatusCode != http.StatusBadRequest || !strings.Contains(err.Error(), "SYN0002") {
		t.Fatalf("bare kind: %v", err)
	}
	if inner, _ := he.UnmarshalREST()["error"].(map[string]any)["innererror"].(map[string]any); inner["code"] != "SYN0002" {
		t.Fatalf("innererror = %v", inner)
	}
}

func TestIngestAwkwardValues(t *testing.T) {
	_, c := setup(t, nil)
	values := []string{
		"plain",
		"a,b,c",
		`say "hi"`,
		`"`,
		`","`,
		"line1\nline2",
		"crlf\r\nend",
		"trailing newline\n",
		"  spaces  ",
		"",
		`back\slash \n not a newline`,
		"unicode: héllo 日本語 עברית 🙂 e\u0301",
		"tab\there",
		"<|\n.drop table T",
	}
	var batch []rows.Row
	for i, v := range values {
		b, _ := json.Marshal(map[string]any{"id": i, "text": v, "nested": map[string]any{"v": v}})
		batch = append(batch, row(t, string(b)))
	}
	if err := c.Ingest(ctx(t), db, "Awkward", batch, "awk-1"); err != nil {
		t.Fatal(err)
	}
	got := readBack(t, c, "Awkward")
	if len(got) != len(values) {
		t.Fatalf("rows = %d, want %d", len(got), len(values))
	}
	for i, v := range values {
		if got[i]["text"] != v {
			t.Errorf("row %d text = %q, want %q", i, got[i]["text"], v)
		}
		if n, _ := got[i]["nested"].(map[string]any); n["v"] != v {
			t.Errorf("row %d nested = %#v, want %q", i, got[i]["nested"], v)
		}
	}
}

func TestIngestNullsOfEveryType(t *testing.T) {
	_, c := setup(t, nil)
	if _, err := c.Kusto().Mgmt(ctx(t), db, kql.New(".create-merge table ['Typed'] (['id']:long, ['s']:string, ['l']:long, ['i']:int, ['r']:real, ['b']:bool, ['t']:datetime, ['d']:dynamic, ['g']:guid, ['ts']:timespan, ['dec']:decimal)")); err != nil {
		t.Fatal(err)
	}
	batch := []rows.Row{
		row(t, `{"id": 0, "s": null, "l": null, "i": null, "r": null, "b": null, "t": null, "d": null, "g": null, "ts": null, "dec": null}`),
		row(t, `{"id": 1}`),
		row(t, `{"id": 2, "s": "x", "l": 9007199254740993, "i": -2, "r": 0.1, "b": false, "t": "2024-01-02T03:04:05.5+01:00",
			"d": {"k": [1, "two", null]}, "g": "123E27DE-1E4E-49D9-B579-FE0B331D3642", "ts": "1.02:03:04.5", "dec": 12.3456789012345678}`),
	}
	if err := c.Ingest(ctx(t), db, "Typed", batch, "nulls"); err != nil {
		t.Fatal(err)
	}
	got := readBack(t, c, "Typed")
	for _, r := range got[:2] {
		for _, col := range []string{"l", "i", "r", "b", "t", "d", "g", "ts", "dec"} {
			if r[col] != nil {
				t.Errorf("row %v column %s = %#v, want null", r["id"], col, r[col])
			}
		}
		if r["s"] != "" {
			t.Errorf("row %v string = %q, want \"\" (Kusto strings are never null)", r["id"], r["s"])
		}
	}
	want := map[string]any{
		"id": int64(2), "s": "x", "l": int64(9007199254740993), "i": int32(-2), "r": 0.1, "b": false,
		"t": time.Date(2024, 1, 2, 2, 4, 5, 500000000, time.UTC), "d": map[string]any{"k": []any{json.Number("1"), "two", nil}},
		"g": "123e27de-1e4e-49d9-b579-fe0b331d3642", "ts": 26*time.Hour + 3*time.Minute + 4500*time.Millisecond,
		"dec": "12.3456789012345678",
	}
	if !reflect.DeepEqual(got[2], want) {
		t.Fatalf("row 2\n%#v\nwant\n%#v", got[2], want)
	}

	// In a new table, a field that is null in the whole batch becomes string.
	if err := c.Ingest(ctx(t), db, "Fresh", []rows.Row{row(t, `{"id": 1, "later": null}`)}, "fresh"); err != nil {
		t.Fatal(err)
	}
	got = readBack(t, c, "Fresh")
	if got[0]["later"] != "" {
		t.Fatalf("null-only column = %#v", got[0]["later"])
	}
}

func TestIngestNewColumnsKeepTheirPlace(t *testing.T) {
	srv, c := setup(t, nil)
	first := []rows.Row{
		row(t, `{"id": 1, "a": "a1", "b": 10}`),
		row(t, `{"id": 2, "a": "a2", "b": 20}`),
	}
	if err := c.Ingest(ctx(t), db, "Grow", first, "g1"); err != nil {
		t.Fatal(err)
	}
	// Someone else adds a column the client's cache does not know.
	if _, err := c.Kusto().Mgmt(ctx(t), db, kql.New(".create-merge table ['Grow'] (['z']:string, ['c']:long)")); err != nil {
		t.Fatal(err)
	}
	second := []rows.Row{
		row(t, `{"c": 300, "id": 3, "a": "a3", "new": true}`),
		row(t, `{"new": false, "id": 4, "b": 40}`),
	}
	if err := c.Ingest(ctx(t), db, "Grow", second, "g2"); err != nil {
		t.Fatal(err)
	}
	snap, _ := srv.Snapshot(db, "Grow")
	var order []string
	for _, col := range snap.Columns {
		order = append(order, col.Name+":"+col.Type)
	}
	if got := strings.Join(order, " "); got != "a:string b:long id:long z:string c:long new:bool" {
		t.Fatalf("columns = %s", got)
	}
	got := readBack(t, c, "Grow")
	want := []map[string]any{
		{"id": int64(1), "a": "a1", "b": int64(10), "z": "", "c": nil, "new": nil},
		{"id": int64(2), "a": "a2", "b": int64(20), "z": "", "c": nil, "new": nil},
		{"id": int64(3), "a": "a3", "b": nil, "z": "", "c": int64(300), "new": true},
		{"id": int64(4), "a": "", "b": int64(40), "z": "", "c": nil, "new": false},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("rows\n%v\nwant\n%v", got, want)
	}
}

func bigBatch(n int) []rows.Row {
	batch := make([]rows.Row, n)
	for i := range batch {
		batch[i] = rows.Row{
			"id":    json.Number(fmt.Sprint(i)),
			"name":  fmt.Sprintf("device %d, \"rack\" %d", i, i%7),
			"value": json.Number(fmt.Sprintf("%d.25", i)),
			"ok":    i%2 == 0,
			"meta":  map[string]any{"i": json.Number(fmt.Sprint(i))},
		}
	}
	return batch
}

func TestIngestTenThousandRows(t *testing.T) {
	srv, c := setup(t, nil)
	batch := bigBatch(10_000)
	start := time.Now()
	if err := c.Ingest(ctx(t), db, "Big", batch, "big-1"); err != nil {
		t.Fatal(err)
	}
	t.Logf("10,000 rows in one Ingest: %v, %d ingest command(s)", time.Since(start), len(commands(srv, ".ingest")))
	if n := count(t, c, "Big"); n != 10_000 {
		t.Fatalf("count = %d", n)
	}
	got := readBack(t, c, "Big")
	var sum int64
	for _, r := range got {
		sum += r["id"].(int64)
	}
	if len(got) != 10_000 || sum != 10_000*9_999/2 || got[4321]["name"] != `device 4321, "rack" 2` || got[4321]["value"] != 4321.25 {
		t.Fatalf("read back %d rows, sum %d, row 4321 %v", len(got), sum, got[4321])
	}
	// The same batch again with the same tag adds nothing.
	if err := c.Ingest(ctx(t), db, "Big", batch, "big-1"); err != nil {
		t.Fatal(err)
	}
	if n := count(t, c, "Big"); n != 10_000 {
		t.Fatalf("count after retry = %d", n)
	}
}

func TestIngestSplitBatchIsIdempotentPerPart(t *testing.T) {
	srv, c := setup(t, []kustofake.Option{kustofake.WithMaxRequestBytes(256 << 10)}, eventhouse.WithMaxCommandBytes(64<<10))
	batch := bigBatch(10_000)
	// Part 3 fails before it lands; parts 1 and 2 are in.
	srv.Inject(kustofake.Fault{Match: `ingestIfNotExists='["split#2"]'`})
	err := c.Ingest(ctx(t), db, "Split", batch, "split")
	if err == nil || !strings.Contains(err.Error(), "ingest part 3 of") {
		t.Fatalf("err = %v", err)
	}
	parts := len(commands(srv, ".ingest")) - 1
	landed := count(t, c, "Split")
	if landed == 0 || landed >= 10_000 {
		t.Fatalf("landed before the failure: %d", landed)
	}
	if err := c.Ingest(ctx(t), db, "Split", batch, "split"); err != nil {
		t.Fatal(err)
	}
	if n := count(t, c, "Split"); n != 10_000 {
		t.Fatalf("count after retry = %d", n)
	}
	total := len(commands(srv, ".ingest"))
	t.Logf("split into %d parts; %d rows landed before the failure; %d ingest commands in all", total-parts-1, landed, total)
	if total-parts-1 < 10 {
		t.Fatalf("expected many parts, got %d", total-parts-1)
	}
}

func TestIngestEngineFailsThenBack(t *testing.T) {
	srv, c := setup(t, nil)
	batch := []rows.Row{row(t, `{"id": 1, "v": "a"}`), row(t, `{"id": 2, "v": "b"}`)}

	check := func(table string, err error, status int, contains string) {
		t.Helper()
		var ee *eventhouse.EngineError
		if !errors.As(err, &ee) {
			t.Fatalf("%s: %v is not an EngineError", table, err)
		}
		if ee.StatusCode != status || !strings.Contains(ee.Message, contains) || !ee.Retryable() || ee.Table != table || ee.Database != db {
			t.Fatalf("%s: %+v", table, ee)
		}
		if strings.Contains(err.Error(), "<|") {
			t.Fatalf("%s: error carries the command text: %v", table, err)
		}
		if err := c.Ingest(ctx(t), db, table, batch, table+"-tag"); err != nil {
			t.Fatalf("%s: retry: %v", table, err)
		}
		if n := count(t, c, table); n != int64(len(batch)) {
			t.Fatalf("%s: %d rows after retry, want exactly %d", table, n, len(batch))
		}
	}

	// Refused before anything happened.
	srv.FailNext(1)
	check("BeforeApply", c.Ingest(ctx(t), db, "BeforeApply", batch, "BeforeApply-tag"), 503, "injected failure before")

	// The ingest committed but its answer was lost.
	srv.Inject(kustofake.Fault{Match: ".ingest", AfterApply: true})
	err := c.Ingest(ctx(t), db, "AfterApply", batch, "AfterApply-tag")
	if n := count(t, c, "AfterApply"); n != 2 {
		t.Fatalf("after-apply fault: %d rows landed", n)
	}
	check("AfterApply", err, 503, "injected failure after")

	// Unavailable for a while.
	srv.SetUnavailable(true)
	err = c.Ingest(ctx(t), db, "Unavailable", batch, "Unavailable-tag")
	srv.SetUnavailable(false)
	check("Unavailable", err, 503, "unavailable")

	// Down: connection refused, then back on the same address.
	srv.Down()
	err = c.Ingest(ctx(t), db, "Down", batch, "Down-tag")
	if err := srv.Up(); err != nil {
		t.Fatal(err)
	}
	check("Down", err, 0, "connection refused")
	if !strings.Contains(err.Error(), "engine unreachable") {
		t.Fatalf("down error: %v", err)
	}
}

func TestIngestTypeConflicts(t *testing.T) {
	var mu sync.Mutex
	var conflicts []eventhouse.Conflict
	srv, c := setup(t, nil, eventhouse.WithConflictHandler(func(cf eventhouse.Conflict) {
		mu.Lock()
		conflicts = append(conflicts, cf)
		mu.Unlock()
	}))
	if _, err := c.Kusto().Mgmt(ctx(t), db, kql.New(".create-merge table ['Mixed'] (['id']:long, ['n']:long, ['s']:string, ['flag']:bool, ['when']:datetime)")); err != nil {
		t.Fatal(err)
	}
	batch := []rows.Row{
		row(t, `{"id": 1, "n": 1.5, "s": 42, "flag": "yes", "when": "not a time", "a:b": "loses", "a_b": "wins"}`),
		row(t, `{"id": 2, "n": 7.0, "s": {"k": 1}, "flag": true, "when": "2024-01-02T03:04:05Z"}`),
	}
	if err := c.Ingest(ctx(t), db, "Mixed", batch, "mixed"); err != nil {
		t.Fatal(err)
	}
	// The client did not know the table: its first create-merge asked for
	// n:real, the engine refused to change n, and the client merged again
	// with the table's own types.
	cm := commands(srv, ".create-merge table ['Mixed']")[1:] // after the setup command
	if len(cm) != 2 || cm[0].Status != 400 || cm[1].Status != 200 || !strings.Contains(cm[0].CSL, "['n']:real") || !strings.Contains(cm[1].CSL, "['n']:long") {
		t.Fatalf("create-merge sequence: %+v", cm)
	}
	got := readBack(t, c, "Mixed")
	want := []map[string]any{
		{"id": int64(1), "n": nil, "s": "42", "flag": nil, "when": nil, "a_b": "wins"},
		{"id": int64(2), "n": int64(7), "s": `{"k":1}`, "flag": true, "when": time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC), "a_b": ""},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("rows\n%v\nwant\n%v", got, want)
	}
	var reasons []string
	for _, cf := range conflicts {
		reasons = append(reasons, fmt.Sprintf("%d %s %s %v", cf.Row, cf.Column, cf.ColumnType, cf.Value))
	}
	slices.Sort(reasons)
	if got := strings.Join(reasons, "; "); got != "0 a_b  loses; 0 flag bool yes; 0 n long 1.5; 0 when datetime not a time" {
		t.Fatalf("conflicts: %s", got)
	}
	// With the schema cached, the next batch merges without a refusal.
	srv.ResetRequests()
	if err := c.Ingest(ctx(t), db, "Mixed", []rows.Row{row(t, `{"id": 3, "n": 2.5}`)}, "mixed-2"); err != nil {
		t.Fatal(err)
	}
	for _, r := range srv.Requests() {
		if r.Status != 200 {
			t.Fatalf("refused request with a warm cache: %+v", r)
		}
	}
}

func TestIngestRefusals(t *testing.T) {
	srv, c := setup(t, []kustofake.Option{kustofake.WithoutAutoCreate()})
	batch := []rows.Row{row(t, `{"id": 1}`)}
	for _, tc := range []struct {
		db, table, tag, want string
	}{
		{db, "a:b", "t", "invalid Kusto name"},
		{db, "__x", "t", "reserved"},
		{db, "T", "", "empty ingest tag"},
		{"", "T", "t", "empty database"},
	} {
		if err := c.Ingest(ctx(t), tc.db, tc.table, batch, tc.tag); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: %v", tc, err)
		}
	}
	if err := c.Ingest(ctx(t), db, "T", nil, "t"); err != nil {
		t.Errorf("empty batch: %v", err)
	}
	if n := len(srv.Requests()); n != 0 {
		t.Fatalf("%d requests sent for refused input", n)
	}

	// An engine refusal carries the engine's message, for a 502.
	err := c.Ingest(ctx(t), "nope", "T", batch, "t")
	var ee *eventhouse.EngineError
	if !errors.As(err, &ee) || ee.StatusCode != 400 || ee.Code != "BadRequest_EntityNotFound" || ee.Retryable() ||
		!strings.Contains(ee.Message, "Entity ID 'nope' of kind 'Database' was not found") {
		t.Fatalf("unknown database: %#v", err)
	}
	const want = `eventhouse: create-merge table ['T'] in database "nope": engine answered 400 BadRequest_EntityNotFound: Request is invalid and cannot be processed: Entity ID 'nope' of kind 'Database' was not found.`
	if err.Error() != want {
		t.Fatalf("message\n%s\nwant\n%s", err, want)
	}
	var he *azerrors.HttpError
	if !errors.As(err, &he) {
		t.Fatal("the SDK error is not reachable")
	}

	// A query the stand-in does not serve is a clear refusal, not a wrong answer.
	_, err = c.Kusto().Query(ctx(t), kustofake.DefaultDatabase, kql.New("T | summarize count() by id"))
	if err == nil || !strings.Contains(err.Error(), kustofake.NotSupported) {
		t.Fatalf("unsupported query: %v", err)
	}

	if _, err := eventhouse.New("127.0.0.1:8080"); err == nil {
		t.Error("endpoint without scheme accepted")
	}
	if _, err := eventhouse.New("http://h/?a=b"); err == nil {
		t.Error("endpoint with query accepted")
	}
}

func TestIngestConcurrent(t *testing.T) {
	_, c := setup(t, nil)
	var wg sync.WaitGroup
	errs := make(chan error, 20)
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for b := range 5 {
				batch := []rows.Row{
					{"id": json.Number(fmt.Sprint(w*100 + b)), fmt.Sprintf("f%d", b%3): "x", "w": json.Number(fmt.Sprint(w))},
				}
				if err := c.Ingest(context.Background(), db, "Busy", batch, fmt.Sprintf("w%d-b%d", w, b)); err != nil {
					errs <- err
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if n := count(t, c, "Busy"); n != 20 {
		t.Fatalf("count = %d", n)
	}
}
