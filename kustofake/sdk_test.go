package kustofake_test

import (
	"context"
	stderrors "errors"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/Azure/azure-kusto-go/azkustodata"
	azerrors "github.com/Azure/azure-kusto-go/azkustodata/errors"
	"github.com/Azure/azure-kusto-go/azkustodata/kql"
	"github.com/Azure/azure-kusto-go/azkustodata/query"

	"github.com/fabrictest/fabrictest/kustofake"
)

// sdk is a real azkustodata client on the stand-in.
type sdk struct {
	t  *testing.T
	c  *azkustodata.Client
	db string
}

func newSDK(t *testing.T, srv *kustofake.Server, db string) *sdk {
	t.Helper()
	c, err := azkustodata.New(azkustodata.NewConnectionStringBuilder(srv.URL()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return &sdk{t, c, db}
}

func ctx(t *testing.T) context.Context {
	c, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	return c
}

func (s *sdk) mgmt(csl string) ([]query.Row, error) {
	ds, err := s.c.Mgmt(ctx(s.t), s.db, kql.New("").AddUnsafe(csl))
	if err != nil {
		return nil, err
	}
	return ds.Tables()[0].Rows(), nil
}

func (s *sdk) mustMgmt(csl string) []query.Row {
	s.t.Helper()
	rows, err := s.mgmt(csl)
	if err != nil {
		s.t.Fatalf("%.120s: %v", csl, err)
	}
	return rows
}

func (s *sdk) query(csl string) ([]query.Row, error) {
	ds, err := s.c.Query(ctx(s.t), s.db, kql.New("").AddUnsafe(csl))
	if err != nil {
		return nil, err
	}
	return ds.Tables()[0].Rows(), nil
}

func (s *sdk) mustQuery(csl string) []query.Row {
	s.t.Helper()
	rows, err := s.query(csl)
	if err != nil {
		s.t.Fatalf("%s: %v", csl, err)
	}
	return rows
}

func (s *sdk) count(csl string) int64 {
	s.t.Helper()
	rows := s.mustQuery(csl + " | count")
	n, err := rows[0].LongByName("Count")
	if err != nil || n == nil {
		s.t.Fatalf("count: %v", err)
	}
	return *n
}

// wantSYN0002 asserts err is the engine's 400 SYN0002 as the SDK surfaces it.
func wantSYN0002(t *testing.T, what string, err error) {
	t.Helper()
	var he *azerrors.HttpError
	if !stderrors.As(err, &he) {
		t.Fatalf("%s: got %v, want an HTTP error", what, err)
	}
	if he.StatusCode != http.StatusBadRequest || !strings.Contains(err.Error(), "SYN0002") {
		t.Fatalf("%s: got %d %v", what, he.StatusCode, err)
	}
	e, _ := he.UnmarshalREST()["error"].(map[string]any)
	if e["@type"] != "Kusto.Data.Exceptions.KustoBadRequestException" || e["@permanent"] != true {
		t.Fatalf("%s: error %v", what, e)
	}
}

func wantNotSupported(t *testing.T, what string, err error) {
	t.Helper()
	if err == nil || !strings.Contains(err.Error(), kustofake.NotSupported) {
		t.Fatalf("%s: got %v, want %q", what, err, kustofake.NotSupported)
	}
}

func TestSDKRoundTripAllTypes(t *testing.T) {
	srv := kustofake.Start(t)
	s := newSDK(t, srv, "Sensors")
	s.mustMgmt(".create-merge table ['All'] (['s']:string, ['l']:long, ['i']:int, ['r']:real, ['b']:bool, " +
		"['t']:datetime, ['d']:dynamic, ['g']:guid, ['ts']:timespan, ['dec']:decimal)")
	ext := s.mustMgmt(".ingest inline into table ['All'] <|\n" +
		"\"hé, \"\"x\"\"\",9223372036854775807,-5,0.25,true,2024-01-02T03:04:05.1234567Z,\"{\"\"k\"\":[1,\"\"v\"\"]}\",123e27de-1e4e-49d9-b579-fe0b331d3642,1.02:03:04.5000000,2.00000000000001\n" +
		",,,,,,,,,\n")
	if id, _ := ext[0].GuidByName("ExtentId"); id == nil || id.String() == "00000000-0000-0000-0000-000000000000" {
		t.Fatalf("ExtentId = %v", id)
	}
	rows := s.mustQuery("All")
	if len(rows) != 2 {
		t.Fatalf("rows = %d", len(rows))
	}
	full, null := rows[0], rows[1]
	str, _ := full.StringByName("s")
	l, _ := full.LongByName("l")
	i, _ := full.IntByName("i")
	r, _ := full.RealByName("r")
	b, _ := full.BoolByName("b")
	ts, _ := full.DateTimeByName("t")
	d, _ := full.DynamicByName("d")
	g, _ := full.GuidByName("g")
	span, _ := full.TimespanByName("ts")
	dec, _ := full.DecimalByName("dec")
	if str != `hé, "x"` || *l != 9223372036854775807 || *i != -5 || *r != 0.25 || !*b ||
		!ts.Equal(time.Date(2024, 1, 2, 3, 4, 5, 123456700, time.UTC)) || string(d) != `{"k":[1,"v"]}` ||
		g.String() != "123e27de-1e4e-49d9-b579-fe0b331d3642" || *span != 26*time.Hour+3*time.Minute+4500*time.Millisecond ||
		dec.String() != "2.00000000000001" {
		t.Fatalf("values: %s", full)
	}
	// Empty fields are null for every type but string, which is "".
	for _, c := range []string{"l", "i", "r", "b", "t", "d", "g", "ts", "dec"} {
		v, err := null.ValueByName(c)
		if err != nil {
			t.Fatal(err)
		}
		if !isNilPointer(v.GetValue()) {
			t.Errorf("column %s: %v, want null", c, v.GetValue())
		}
	}
	if v, _ := null.StringByName("s"); v != "" {
		t.Errorf("string null = %q", v)
	}
}

// isNilPointer reports whether an SDK value (a pointer or byte slice) is null.
func isNilPointer(v any) bool {
	rv := reflect.ValueOf(v)
	return !rv.IsValid() || ((rv.Kind() == reflect.Pointer || rv.Kind() == reflect.Slice) && rv.IsNil())
}

func TestSDKRefusedBareNames(t *testing.T) {
	srv := kustofake.Start(t)
	s := newSDK(t, srv, "db")
	for _, kw := range kustofake.RefusedBareNames {
		_, err := s.mgmt(".create table KwBare_" + kw + " (" + kw + ":string)")
		wantSYN0002(t, "bare column "+kw, err)
	}
	// The other 27 keywords kustainer was probed with are accepted bare.
	for _, kw := range []string{"by", "contains", "datatable", "distinct", "endswith", "extend", "from", "has", "in",
		"join", "let", "limit", "not", "null", "on", "parse", "print", "range", "set", "sort", "startswith",
		"summarize", "take", "then", "top", "where", "with"} {
		s.mustMgmt(".create table KwBare_" + kw + " (" + kw + ":string)")
	}
	// Keywords are case-sensitive.
	s.mustMgmt(".create table Kind (Kind:string)")

	_, err := s.mgmt(".create-merge table kind (a:string)")
	wantSYN0002(t, "bare table name", err)
	_, err = s.mgmt(".create-merge table T (['a']:string, 1day:string)")
	wantSYN0002(t, "name starting with a digit", err)
	_, err = s.mgmt(".ingest inline into table kind <|\nx")
	wantSYN0002(t, "bare ingest table", err)
	_, err = s.mgmt(".show table kind schema as json")
	wantSYN0002(t, "bare show table", err)
	_, err = s.mgmt(".drop table kind")
	wantSYN0002(t, "bare drop table", err)
	_, err = s.query("kind | count")
	wantSYN0002(t, "bare query table", err)
}

func TestSDKQuotedNamesAreTheSameEntity(t *testing.T) {
	srv := kustofake.Start(t)
	s := newSDK(t, srv, "db")
	// Every probed keyword is legal quoted.
	s.mustMgmt(`.create-merge table ['kind'] (['kind']:string, ["project"]:string, ['where']:long, ['or']:bool)`)
	s.mustMgmt(".ingest inline into table [\"kind\"] <|\nx,p,1,true\ny,q,2,false")
	if n := s.count(`["kind"]`); n != 2 {
		t.Fatalf("count = %d", n)
	}
	rows := s.mustQuery(`['kind'] | where ['kind'] == 'x' and ["or"] == true | project ['project'], ["where"]`)
	if len(rows) != 1 {
		t.Fatalf("rows = %d", len(rows))
	}
	if p, _ := rows[0].StringByName("project"); p != "p" {
		t.Fatalf("project = %q", p)
	}
	// A table made bare, merged again fully quoted: same table, no new columns.
	s.mustMgmt(".create table Readings (DeviceId:string, Temp:real, At:datetime)")
	s.mustMgmt(".ingest inline into table Readings <|\ndev-1,21.5,2026-07-31T00:00:00Z")
	s.mustMgmt(".create-merge table ['Readings'] (['DeviceId']:string, ['Temp']:real, ['At']:datetime)")
	snap, _ := srv.Snapshot("db", "Readings")
	if len(snap.Columns) != 3 || len(snap.Rows) != 1 || s.count("['Readings']") != 1 {
		t.Fatalf("Readings after quoted merge: %+v", snap)
	}
	// Table names are case-sensitive; database names are not.
	if _, err := s.query("readings | count"); err == nil || !strings.Contains(err.Error(), "SEM0100") {
		t.Fatalf("case-folded table: %v", err)
	}
	if n := newSDK(t, srv, "DB").count("Readings"); n != 1 {
		t.Fatalf("DB vs db: %d", n)
	}
	// Names outside the entity-name rules are refused even quoted.
	for _, bad := range []string{`['a:b']`, `['it\'s']`, `['__x']`, `['']`} {
		_, err := s.mgmt(".create-merge table T (" + bad + ":string)")
		if err == nil || !strings.Contains(err.Error(), "EntityNameIsNotValid") {
			t.Errorf("%s: %v", bad, err)
		}
	}
}

func TestSDKQueries(t *testing.T) {
	srv := kustofake.Start(t)
	s := newSDK(t, srv, "db")
	s.mustMgmt(".create-merge table T (name:string, n:long, x:real, ok:bool)")
	s.mustMgmt(".ingest inline into table T <|\na,1,1.5,true\nb,2,2.5,false\nc,3,,true\n,4,4,")
	if n := s.count("T"); n != 4 {
		t.Fatalf("count %d", n)
	}
	if n := s.count("T | where n == 2"); n != 1 {
		t.Fatalf("n == 2: %d", n)
	}
	if n := s.count("T | where n != 2"); n != 3 {
		t.Fatalf("n != 2: %d", n)
	}
	if n := s.count(`T | where name == "c" and ok == true`); n != 1 {
		t.Fatalf("and: %d", n)
	}
	if n := s.count("T | where x == 1.5"); n != 1 {
		t.Fatalf("real: %d", n)
	}
	if n := s.count("T | where x != 1.5"); n != 2 { // the null x is neither
		t.Fatalf("real !=: %d", n)
	}
	if n := s.count("T | where 3 == n"); n != 1 {
		t.Fatalf("literal first: %d", n)
	}
	if n := s.count("T | where n == -1"); n != 0 {
		t.Fatalf("negative: %d", n)
	}
	if n := s.count(`T | where name == ""`); n != 1 {
		t.Fatalf("empty string: %d", n)
	}
	rows := s.mustQuery("T | where ok == true | project n, name | take 1")
	if len(rows) != 1 || len(rows[0].Columns()) != 2 || rows[0].Columns()[0].Name() != "n" {
		t.Fatalf("chain: %v", rows)
	}
	if rows := s.mustQuery("T | limit 2"); len(rows) != 2 {
		t.Fatalf("limit: %d", len(rows))
	}
	if rows := s.mustQuery("T | take 0"); len(rows) != 0 {
		t.Fatalf("take 0: %d", len(rows))
	}

	// Semantic errors, with the engine's codes.
	for csl, want := range map[string]string{
		"Nope | count":             "SEM0100",
		"T | project nope":         "SEM0100",
		"T | where nope == 1":      "SEM0100",
		"T | where name == 1":      "Cannot compare values of types string and long",
		`T | where n == "1"`:       "Cannot compare values of types long and string",
		"T | project n, n":         "projected more than once",
		"T | where":                "SYN0002",
		"T | take":                 "SYN0002",
		"T | project kind":         "SYN0002",
		"T | where kind == 'x'":    "SYN0002",
		"T | where name == 'open":  "SYN0002",
		"T | project name | count": "",
	} {
		_, err := s.query(csl)
		if want == "" {
			if err != nil {
				t.Errorf("%s: %v", csl, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", csl, err, want)
		}
	}
}

func TestSDKUnsupported(t *testing.T) {
	srv := kustofake.Start(t)
	s := newSDK(t, srv, "db")
	s.mustMgmt(".create-merge table T (a:string, n:long, t:datetime)")
	for _, csl := range []string{
		"T | summarize count() by a",
		"T | extend b = 1",
		"T | where n > 1",
		"T | where a contains 'x'",
		"T | where n == 1 or n == 2",
		"T | where isnotempty(a)",
		"T | order by n",
		"T | project b = n",
		"T | take n",
		"T | where t == '2024-01-01'",
		"print 1",
		"let x = 1; T",
		"T | join (T) on a",
		"union T, T",
		"T | where n == 1d",
	} {
		_, err := s.query(csl)
		if err != nil && strings.Contains(err.Error(), "SYN0002") {
			continue // union is a refused bare name: SYN0002 is what the engine says too
		}
		wantNotSupported(t, csl, err)
	}
	for _, csl := range []string{
		".alter table T (a:string)",
		".set-or-append T <| T",
		".ingest into table T (h'https://x/y.csv')",
		".ingest inline into table T with (format='json') <|\n{}",
		".ingest inline into table T with (ingestionMappingReference='m') <|\nx",
		".show tables details",
		".show table T",
		".show cluster",
		".create-merge tables A (a:string), B (b:string)",
		".create-merge table U (a:string) with (hidden=true)",
		".drop tables (T)",
	} {
		_, err := s.mgmt(csl)
		wantNotSupported(t, csl, err)
	}
}

func TestSDKIngestInline(t *testing.T) {
	srv := kustofake.Start(t)
	s := newSDK(t, srv, "db")
	s.mustMgmt(".create-merge table ['T'] (['a']:string, ['n']:long)")
	// Tag dedupe: an ingest whose ingestIfNotExists tag was ingested adds nothing.
	ingest := `.ingest inline into table ['T'] with (tags='["ingest-by:b1"]', ingestIfNotExists='["b1"]') <|` + "\nx,1\ny,2"
	s.mustMgmt(ingest)
	ext := s.mustMgmt(ingest)
	if id, _ := ext[0].GuidByName("ExtentId"); id.String() != "00000000-0000-0000-0000-000000000000" {
		t.Fatalf("second ingest extent %v", id)
	}
	if n := s.count("T"); n != 2 {
		t.Fatalf("count after dedupe = %d", n)
	}
	// A tag with quote and backslash survives KQL and JSON escaping.
	weird := `.ingest inline into table ['T'] with (tags='["ingest-by:it\'s \\\\ \\"q\\""]', ingestIfNotExists='["it\'s \\\\ \\"q\\""]') <|` + "\nz,3"
	s.mustMgmt(weird)
	s.mustMgmt(weird)
	if n := s.count("T"); n != 3 {
		t.Fatalf("count after escaped tag = %d", n)
	}
	// Values that do not parse as the column's type are null; short records
	// are padded; long ones are refused; ignoreFirstRecord skips a header.
	s.mustMgmt(".ingest inline into table ['T'] with (ignoreFirstRecord=true) <|\na,n\nbad,notanumber\nshort")
	if n := s.count("T | where n == 3"); n != 1 {
		t.Fatalf("n==3: %d", n)
	}
	rows := s.mustQuery("T | where a == 'bad'")
	if v, _ := rows[0].LongByName("n"); v != nil {
		t.Fatalf("unparsable long = %v, want null", *v)
	}
	if n := s.count("T | where a == 'short'"); n != 1 {
		t.Fatalf("short record: %d", n)
	}
	_, err := s.mgmt(".ingest inline into table ['T'] <|\na,1,extra")
	if err == nil || !strings.Contains(err.Error(), "Stream_WrongNumberOfFields") {
		t.Fatalf("long record: %v", err)
	}
	_, err = s.mgmt(".ingest inline into table ['T'] <|\n\"open,1")
	if err == nil || !strings.Contains(err.Error(), "Stream_InvalidCsvFormat") {
		t.Fatalf("bad csv: %v", err)
	}
	_, err = s.mgmt(".ingest inline into table ['Missing'] <|\nx")
	if err == nil || !strings.Contains(err.Error(), "EntityNotFound") {
		t.Fatalf("missing table: %v", err)
	}
	_, err = s.mgmt(".create-merge table ['T'] (['n']:string)")
	if err == nil || !strings.Contains(err.Error(), "cannot change it") {
		t.Fatalf("type change: %v", err)
	}
}

func TestSDKTablesAndDatabases(t *testing.T) {
	srv := kustofake.Start(t, kustofake.WithDatabases("one", "two"), kustofake.WithoutAutoCreate())
	one, two := newSDK(t, srv, "one"), newSDK(t, srv, "two")
	one.mustMgmt(".create-merge table T (a:string)")
	two.mustMgmt(".create-merge table T (a:string)")
	one.mustMgmt(".ingest inline into table T <|\nx\ny")
	two.mustMgmt(".ingest inline into table T <|\nz")
	if one.count("T") != 2 || two.count("T") != 1 {
		t.Fatal("databases are not isolated")
	}
	rows := one.mustMgmt(".show tables")
	if name, _ := rows[0].StringByName("TableName"); len(rows) != 1 || name != "T" {
		t.Fatalf(".show tables = %v", rows)
	}
	rows = one.mustMgmt(".show table T cslschema")
	if sch, _ := rows[0].StringByName("Schema"); sch != "a:string" {
		t.Fatalf("cslschema = %q", sch)
	}
	one.mustMgmt(".drop table T")
	one.mustMgmt(".drop table T ifexists")
	if _, err := one.mgmt(".drop table T"); err == nil || !strings.Contains(err.Error(), "EntityNotFound") {
		t.Fatalf("drop missing: %v", err)
	}
	if two.count("T") != 1 {
		t.Fatal("drop crossed databases")
	}
	// Unknown databases are an error without auto-create, until created.
	three := newSDK(t, srv, "three")
	if _, err := three.mgmt(".show tables"); err == nil || !strings.Contains(err.Error(), "'Database' was not found") {
		t.Fatalf("unknown db: %v", err)
	}
	three.mustMgmt(".create database three volatile")
	three.mustMgmt(".show tables")
	if _, err := three.mgmt(".create database three volatile"); err == nil {
		t.Fatal("duplicate database accepted")
	}
	three.mustMgmt(".create database Three persist (@'/kustodata/x/md', @'/kustodata/x/data') ifnotexists")
	if n := len(three.mustMgmt(".show databases")); n != 4 {
		t.Fatalf(".show databases = %d rows (NetDefaultDB, one, two, three)", n)
	}
	three.mustMgmt(".drop database three")
}

func TestSDKFaults(t *testing.T) {
	srv := kustofake.Start(t)
	s := newSDK(t, srv, "db")
	s.mustMgmt(".create-merge table T (a:string)")

	srv.FailNext(2)
	for range 2 {
		_, err := s.mgmt(".show tables")
		var he *azerrors.HttpError
		if !stderrors.As(err, &he) || he.StatusCode != http.StatusServiceUnavailable || he.UnmarshalREST()["error"].(map[string]any)["@permanent"] != false {
			t.Fatalf("injected failure: %v", err)
		}
	}
	s.mustMgmt(".show tables")

	// AfterApply: the ingest lands, its answer is lost.
	srv.Inject(kustofake.Fault{Match: ".ingest", AfterApply: true, Status: http.StatusInternalServerError})
	if _, err := s.mgmt(".ingest inline into table T <|\nx"); err == nil || !strings.Contains(err.Error(), "500") {
		t.Fatalf("after-apply fault: %v", err)
	}
	if s.count("T") != 1 {
		t.Fatal("after-apply fault did not apply the command")
	}
	if srv.PendingFaults() != 0 {
		t.Fatalf("pending faults %d", srv.PendingFaults())
	}

	srv.SetUnavailable(true)
	if _, err := s.query("T"); err == nil || !strings.Contains(err.Error(), "503") {
		t.Fatalf("unavailable: %v", err)
	}
	srv.SetUnavailable(false)

	srv.Down()
	_, err := s.mgmt(".show tables")
	if err == nil || !strings.Contains(err.Error(), "connection refused") {
		t.Fatalf("down: %v", err)
	}
	if err := srv.Up(); err != nil {
		t.Fatal(err)
	}
	if s.count("T") != 1 {
		t.Fatal("data lost across Down/Up")
	}
	var failed int
	for _, r := range srv.Requests() {
		if r.Fault {
			failed++
		}
	}
	if failed != 4 {
		t.Fatalf("requests recorded as faults: %d", failed)
	}
}
