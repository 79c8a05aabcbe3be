package fabrictest

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"path/filepath"
	"strings"

	"github.com/fabrictest/fabrictest/emulator/delta"

	"github.com/fabrictest/fabrictest/emulator/wire"
)

// Lakehouse is a Fabric Lakehouse in the environment. Its tables are Delta
// tables in a real local directory, TablesPath, which the emulator's
// Lakehouse destinations write and any Delta reader (Spark, delta-rs,
// DuckDB, Table's readers) reads.
type Lakehouse struct {
	// ID is the item id (a GUID).
	ID string
	// WorkspaceID is the workspace the item lives in.
	WorkspaceID string
	// Name is the display name.
	Name string
	// TablesPath is properties.x-fabrictest-localTablesPath: the local
	// directory holding one Delta table per subdirectory.
	TablesPath string
	// FilesPath is properties.x-fabrictest-localFilesPath (rows a table
	// refused are parked under Files/_rejected).
	FilesPath string
	// TablesURL is properties.oneLakeTablesPath: the same tables over the
	// emulator's OneLake surface (<emulator>/onelake/<ws>/<item>/Tables).
	TablesURL string
	// FilesURL is properties.oneLakeFilesPath, over OneLake.
	FilesURL string

	handle
}

// Lakehouse creates a Lakehouse named name in the workspace (letters, digits
// and underscores, starting with a letter) and fails the test if it cannot.
//
//	lh := ws.Lakehouse("sales")
//	es.BindLakehouse(lh, "orders")
//	es.ProduceJSON(map[string]any{"id": 1})
//	Expect(lh.Table("orders")).To(fabrictest.HaveDeltaRows(1))
func (w Workspace) Lakehouse(name string) Lakehouse {
	w.env.t.Helper()
	lh, err := w.TryLakehouse(name)
	if err != nil {
		w.env.t.Fatalf("fabrictest: create lakehouse %q in workspace %s: %v", name, w.ID, err)
	}
	return lh
}

// TryLakehouse is Lakehouse that returns the error (an *APIError for a
// refused call, such as 400 InvalidInput for a name with a dash) instead of
// failing the test.
func (w Workspace) TryLakehouse(name string) (Lakehouse, error) {
	var out struct {
		itemJSON
		Properties struct {
			TablesPath string `json:"x-fabrictest-localTablesPath"`
			FilesPath  string `json:"x-fabrictest-localFilesPath"`
			TablesURL  string `json:"oneLakeTablesPath"`
			FilesURL   string `json:"oneLakeFilesPath"`
		} `json:"properties"`
	}
	if _, err := w.env.do(http.MethodPost, w.path()+"/lakehouses", nil, map[string]any{"displayName": name}, 0, &out); err != nil {
		return Lakehouse{}, err
	}
	return Lakehouse{ID: out.ID, WorkspaceID: out.WorkspaceID, Name: out.DisplayName,
		TablesPath: out.Properties.TablesPath, FilesPath: out.Properties.FilesPath,
		TablesURL: out.Properties.TablesURL, FilesURL: out.Properties.FilesURL, handle: handle{w.env}}, nil
}

// Item returns the Lakehouse as a generic item (for its job instances).
func (lh Lakehouse) Item() Item {
	return Item{ID: lh.ID, WorkspaceID: lh.WorkspaceID, Type: "Lakehouse", Name: lh.Name, handle: handle{lh.env}}
}

// Table returns a handle on the Delta table name of the Lakehouse. Nothing
// is read until it is used; the table exists once a destination has
// delivered its first batch.
func (lh Lakehouse) Table(name string) Table {
	u := ""
	if lh.TablesURL != "" {
		u = lh.TablesURL + "/" + url.PathEscape(name)
	}
	return Table{Name: name, Dir: filepath.Join(lh.TablesPath, name), URL: u, LakehouseID: lh.ID, handle: handle{lh.env}}
}

// Tables lists the names of the Lakehouse's Delta tables through the
// emulator (GET …/lakehouses/{id}/tables) and fails the test unless it
// answers 2xx.
func (lh Lakehouse) Tables() []string {
	lh.env.t.Helper()
	names, err := lh.TryTables()
	if err != nil {
		lh.env.t.Fatalf("fabrictest: list tables of lakehouse %s: %v", lh.ID, err)
	}
	return names
}

// TryTables is Tables that returns the error instead of failing the test.
func (lh Lakehouse) TryTables() ([]string, error) {
	var out wire.TableList
	p := "/v1/workspaces/" + url.PathEscape(lh.WorkspaceID) + "/lakehouses/" + url.PathEscape(lh.ID) + "/tables"
	if _, err := lh.env.do(http.MethodGet, p, nil, nil, 0, &out); err != nil {
		return nil, err
	}
	names := make([]string, len(out.Data))
	for i, d := range out.Data {
		names[i] = d.Name
	}
	return names, nil
}

// ------------------------------------------------------------------ tables

// Table is one Delta table of a Lakehouse, read straight from its directory
// (or through OneLake when the directory is out of sight) with
// emulator/delta's reader (the whole log, then every live data file),
// so that what a test sees is what Spark or delta-rs would read. Each call
// reads the table afresh.
type Table struct {
	// Name is the table name.
	Name string
	// Dir is the table's root directory (<TablesPath>/<Name>).
	Dir string
	// URL is the table over OneLake (<TablesURL>/<Name>): the table is read
	// there when this process cannot see Dir's parent (an emulator in a
	// container, or on another machine).
	URL string
	// LakehouseID is the Lakehouse the table belongs to.
	LakehouseID string

	handle
}

// Snapshot reads the table at its latest version (version, schema, every
// row, commits, files and txns) and fails the test if it cannot, for
// instance because no destination has written it yet.
func (t Table) Snapshot() *delta.Snapshot {
	t.env.t.Helper()
	s, err := t.TrySnapshot()
	if err != nil {
		t.env.t.Fatalf("fabrictest: %v", err)
	}
	return s
}

// TrySnapshot is Snapshot that returns the error instead of failing the
// test. As a method value it drops into gomega's Eventually:
//
//	Eventually(table.TrySnapshot).Should(fabrictest.HaveDeltaRows(3))
func (t Table) TrySnapshot() (*delta.Snapshot, error) {
	s, err := t.readTable()
	if err != nil {
		return nil, fmt.Errorf("table %q of lakehouse %s: %w", t.Name, t.LakehouseID, err)
	}
	return s, nil
}

// Rows reads every row of the table, in the order they were appended, each
// with every column (nil for null; values string, int64, float64, bool,
// time.Time, map[string]any, []any), and fails the test if it cannot.
func (t Table) Rows() Rows {
	t.env.t.Helper()
	rs, err := t.TryRows()
	if err != nil {
		t.env.t.Fatalf("fabrictest: %v", err)
	}
	return rs
}

// TryRows is Rows that returns the error instead of failing the test.
func (t Table) TryRows() (Rows, error) {
	s, err := t.TrySnapshot()
	if err != nil {
		return nil, err
	}
	return Rows(s.Rows), nil
}

// Schema reads the table's schema at its latest version and fails the test
// if it cannot.
func (t Table) Schema() delta.Schema {
	t.env.t.Helper()
	s, err := t.TrySchema()
	if err != nil {
		t.env.t.Fatalf("fabrictest: %v", err)
	}
	return s
}

// TrySchema is Schema that returns the error instead of failing the test.
func (t Table) TrySchema() (delta.Schema, error) {
	s, err := t.TrySnapshot()
	if err != nil {
		return delta.Schema{}, err
	}
	return s.Schema, nil
}

// Versions reads the table's log and returns every version, 0 to the
// latest, as the commit that made it (operation, rows added, txns, whether
// the schema changed); it fails the test if it cannot.
func (t Table) Versions() []delta.Commit {
	t.env.t.Helper()
	cs, err := t.TryVersions()
	if err != nil {
		t.env.t.Fatalf("fabrictest: %v", err)
	}
	return cs
}

// TryVersions is Versions that returns the error instead of failing the test.
func (t Table) TryVersions() ([]delta.Commit, error) {
	s, err := t.TrySnapshot()
	if err != nil {
		return nil, err
	}
	return s.Commits, nil
}

// String names the table for messages.
func (t Table) String() string { return fmt.Sprintf("Delta table %q at %s", t.Name, t.Dir) }

// GomegaString makes gomega print the handle, not its environment.
func (t Table) GomegaString() string { return t.String() }

// ------------------------------------------------------------------ rows

// Rows are table rows as column → value maps: a Delta table's (Table.Rows)
// or a Kusto table's (Env.KustoRows). Gomega prints them one JSON object per
// line.
type Rows []map[string]any

// String renders the rows one per line (at most 20, then a count).
func (rs Rows) String() string { return summarizeRows(rs, "") }

// GomegaString makes gomega print rows readably in any matcher's message.
func (rs Rows) GomegaString() string { return summarizeRows(rs, "    ") }

// Column returns the values of one column, in row order.
func (rs Rows) Column(name string) []any {
	out := make([]any, len(rs))
	for i, r := range rs {
		out[i] = r[name]
	}
	return out
}

// summarizeRows lists rows as compact JSON objects (keys sorted), one per
// line with indent, at most maxShown.
func summarizeRows(rs []map[string]any, indent string) string {
	if len(rs) == 0 {
		return indent + "<no rows>"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s%d row(s):\n", indent, len(rs))
	for i, r := range rs {
		if i == maxShown {
			fmt.Fprintf(&b, "%s  … and %d more\n", indent, len(rs)-maxShown)
			break
		}
		b.WriteString(indent + "  " + showRow(r) + "\n")
	}
	return strings.TrimRight(b.String(), "\n")
}

// showRow renders one row as compact JSON with sorted keys, shortened past
// 300 characters.
func showRow(r map[string]any) string {
	b, err := json.Marshal(r)
	if err != nil {
		return fmt.Sprint(r)
	}
	return snippet(b)
}

// ------------------------------------------------------------------ destinations

// Destination is an Eventstream's binding to a Lakehouse table, an
// Eventhouse table or a Reflex: the emulator delivers every event of the
// Eventstream (after its operators) there. An HTTP produce answers only
// after every bound destination has delivered it, so a test can produce and
// assert without waiting.
type Destination struct {
	// ID is the destination id.
	ID string
	// Type is Lakehouse, Eventhouse or Reflex.
	Type string
	// WorkspaceID and ItemID name the target item.
	WorkspaceID string
	ItemID      string
	// Table is the target table (none for a Reflex).
	Table string
	// Database is the KQL database of an Eventhouse destination.
	Database string
	// Status is Running, Failed (Delivery.LastError says why), Warning
	// (Kafka cannot serve its topic for now: Delivery.LastKafkaError)
	// or Inactive, as of the call that returned the handle (see Refresh).
	Status string
	// Delivery counts what the destination did, as of the same call.
	Delivery Delivery

	// EventstreamID is the Eventstream the destination reads.
	EventstreamID string

	es Eventstream
}

// UnmarshalJSON reads a binding as the destinations routes answer it
// (wire.Destination; GET of one adds its topology node beside it).
func (d *Destination) UnmarshalJSON(b []byte) error {
	var w wire.Destination
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	*d = Destination{ID: w.ID, Type: w.Type, WorkspaceID: w.WorkspaceID, ItemID: w.ItemID, Table: w.Table, Database: w.Database, Status: w.Status}
	if w.Delivery != nil {
		d.Delivery = deliveryOf(*w.Delivery)
	}
	return nil
}

// Delivery is what a destination reports about its work (wire.Delivery,
// with absent counters as 0).
type Delivery struct {
	// Delivered counts the rows written.
	Delivered int64
	// FailedAttempts counts the writes that failed (and were retried).
	FailedAttempts int64
	// LastError is the last failure, when Status is Failed.
	LastError string
	// LastKafkaError is why the Kafka cluster cannot serve the destination's
	// topic (a broker lost), when Status is Warning; delivery resumes, from
	// where it stopped, once the cluster answers.
	LastKafkaError string
	// RejectedRows counts rows a Lakehouse table could not hold (parked
	// under Files/_rejected); LastRejection says why the last one was.
	RejectedRows  int64
	LastRejection string
	// BufferedRows counts the rows a batching Lakehouse destination holds,
	// not yet committed (see Env.AdvanceClock and FlushDestination).
	BufferedRows int64
}

// deliveryOf is w as a Delivery.
func deliveryOf(w wire.Delivery) Delivery {
	d := Delivery{Delivered: w.Delivered, FailedAttempts: w.FailedAttempts, LastError: w.LastError, LastKafkaError: w.LastKafkaError,
		RejectedRows: w.RejectedRows, LastRejection: w.LastRejection}
	if w.BufferedRows != nil {
		d.BufferedRows = *w.BufferedRows
	}
	return d
}

// BindLakehouse binds the Eventstream to table of lh (created by the first
// delivery) and fails the test unless the emulator answers 2xx. Binding the
// same table again returns the same destination. A new binding starts at the
// end of the topic: events produced before it are not delivered.
func (es Eventstream) BindLakehouse(lh Lakehouse, table string) Destination {
	es.env.t.Helper()
	d, err := es.TryBindLakehouse(lh, table)
	if err != nil {
		es.env.t.Fatalf("fabrictest: bind eventstream %s to table %q of lakehouse %s: %v", es.ID, table, lh.ID, err)
	}
	return d
}

// TryBindLakehouse is BindLakehouse that returns the error (an *APIError,
// such as 400 InvalidInput for a table name with a dash) instead of failing
// the test.
func (es Eventstream) TryBindLakehouse(lh Lakehouse, table string) (Destination, error) {
	return es.bind(map[string]any{"type": "Lakehouse", "itemId": lh.ID, "table": table}, lh.WorkspaceID)
}

// bind posts a destination; a target in another workspace is named.
func (es Eventstream) bind(body map[string]any, targetWorkspace string) (Destination, error) {
	if targetWorkspace != "" && targetWorkspace != es.WorkspaceID {
		body["workspaceId"] = targetWorkspace
	}
	var d Destination
	if _, err := es.env.do(http.MethodPost, es.itemPath()+"/destinations", nil, body, 0, &d); err != nil {
		return Destination{}, err
	}
	d.EventstreamID, d.es = es.ID, es
	return d, nil
}

// Destinations lists the Eventstream's destinations and fails the test
// unless the emulator answers 2xx.
func (es Eventstream) Destinations() []Destination {
	es.env.t.Helper()
	ds, err := es.TryDestinations()
	if err != nil {
		es.env.t.Fatalf("fabrictest: list destinations of eventstream %s: %v", es.ID, err)
	}
	return ds
}

// TryDestinations is Destinations that returns the error instead of failing
// the test.
func (es Eventstream) TryDestinations() ([]Destination, error) {
	var out wire.List[Destination]
	if _, err := es.env.do(http.MethodGet, es.itemPath()+"/destinations", nil, nil, 0, &out); err != nil {
		return nil, err
	}
	for i := range out.Value {
		out.Value[i].EventstreamID, out.Value[i].es = es.ID, es
	}
	return out.Value, nil
}

// String describes the destination on one line, such as
// `Lakehouse destination 1f… → table "orders" of item 7c… (Running, 12 delivered)`.
func (d Destination) String() string {
	target := "item " + d.ItemID
	switch {
	case d.Table != "" && d.Database != "":
		target = fmt.Sprintf("table %q of database %q of item %s", d.Table, d.Database, d.ItemID)
	case d.Table != "":
		target = fmt.Sprintf("table %q of item %s", d.Table, d.ItemID)
	}
	s := fmt.Sprintf("%s destination %s → %s (%s, %d delivered", d.Type, d.ID, target, d.Status, d.Delivery.Delivered)
	if d.Delivery.LastError != "" {
		s += ", last error: " + d.Delivery.LastError
	}
	return s + ")"
}

// GomegaString makes gomega print the destination on one line.
func (d Destination) GomegaString() string { return d.String() }

func (d Destination) path() string { return d.es.itemPath() + "/destinations/" + url.PathEscape(d.ID) }

// Refresh reads the destination again (status and delivery counts) and
// fails the test unless the emulator answers 2xx.
func (d Destination) Refresh() Destination {
	d.es.env.t.Helper()
	n, err := d.TryRefresh()
	if err != nil {
		d.es.env.t.Fatalf("fabrictest: get destination %s of eventstream %s: %v", d.ID, d.EventstreamID, err)
	}
	return n
}

// TryRefresh is Refresh that returns the error instead of failing the test.
func (d Destination) TryRefresh() (Destination, error) {
	if d.es.env == nil {
		return d, errors.New("destination handle has no eventstream: get it from a Bind… call or Destinations")
	}
	var n Destination
	if _, err := d.es.env.do(http.MethodGet, d.path(), nil, nil, 0, &n); err != nil {
		return d, err
	}
	n.EventstreamID, n.es = d.EventstreamID, d.es
	return n, nil
}

// Unbind removes the destination (delivery stops; what was delivered stays)
// and fails the test unless the emulator answers 2xx.
func (d Destination) Unbind() {
	d.es.env.t.Helper()
	if err := d.TryUnbind(); err != nil {
		d.es.env.t.Fatalf("fabrictest: unbind destination %s of eventstream %s: %v", d.ID, d.EventstreamID, err)
	}
}

// TryUnbind is Unbind that returns the error instead of failing the test.
func (d Destination) TryUnbind() error {
	if d.es.env == nil {
		return errors.New("destination handle has no eventstream: get it from a Bind… call or Destinations")
	}
	_, err := d.es.env.do(http.MethodDelete, d.path(), nil, nil, 0, nil)
	return err
}

// itemJSON is an item as the typed routes render it; a type's answer
// embeds it beside its typed properties.
type itemJSON = wire.Item
