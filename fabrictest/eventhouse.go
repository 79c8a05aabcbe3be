package fabrictest

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"

	"github.com/fabrictest/fabrictest/emulator"
	"github.com/fabrictest/fabrictest/emulator/eventhouse"
	"github.com/fabrictest/fabrictest/kustofake"
)

// Eventhouse is a Fabric Eventhouse in the environment with its default KQL
// database (of the same name). Its Eventstream destinations ingest into the
// Kusto engine the environment is attached to (WithKustoFake or WithKQL);
// Env.KustoRows and Eventhouse.Rows read tables back through the official
// SDK, azure-kusto-go.
type Eventhouse struct {
	// ID is the item id (a GUID).
	ID string
	// WorkspaceID is the workspace the item lives in.
	WorkspaceID string
	// Name is the display name.
	Name string
	// Database is the name of the default KQL database (the Eventhouse's
	// name), the database a destination ingests into unless told otherwise.
	Database string
	// DatabaseID is the default KQL database's item id.
	DatabaseID string
	// QueryURI is properties.queryServiceUri: the Kusto engine's URL ("" when
	// the environment has none).
	QueryURI string

	handle
}

// KQLDatabase is a KQL database item of an Eventhouse.
type KQLDatabase struct {
	// ID is the item id.
	ID string
	// Name is the display name, which is the database name in Kusto.
	Name string
	// EventhouseID is the parent Eventhouse.
	EventhouseID string
}

type eventhouseJSON struct {
	itemJSON
	Properties struct {
		QueryServiceURI  string   `json:"queryServiceUri"`
		DatabasesItemIDs []string `json:"databasesItemIds"`
	} `json:"properties"`
}

// Eventhouse creates an Eventhouse named name (letters, digits, '.', '_',
// '-') with its default KQL database, and fails the test if it cannot.
// Ingesting needs a Kusto engine: start the environment with WithKustoFake
// (in-process) or WithKQL (an engine of yours).
//
//	env := fabrictest.Start(t, fabrictest.WithKustoFake())
//	eh := ws.Eventhouse("telemetry")
//	es.BindEventhouse(eh, "Events")
//	es.ProduceJSON(map[string]any{"kind": "click"})
//	Expect(eh.Rows("Events")).To(fabrictest.HaveRowsMatching(map[string]any{"kind": "click"}))
func (w Workspace) Eventhouse(name string) Eventhouse {
	w.env.t.Helper()
	eh, err := w.TryEventhouse(name)
	if err != nil {
		w.env.t.Fatalf("fabrictest: create eventhouse %q in workspace %s: %v", name, w.ID, err)
	}
	return eh
}

// TryEventhouse is Eventhouse that returns the error (an *APIError for a
// refused call) instead of failing the test.
func (w Workspace) TryEventhouse(name string) (Eventhouse, error) {
	var out eventhouseJSON
	if _, err := w.env.do(http.MethodPost, w.path()+"/eventhouses", nil, map[string]any{"displayName": name}, 0, &out); err != nil {
		return Eventhouse{}, err
	}
	eh := Eventhouse{ID: out.ID, WorkspaceID: out.WorkspaceID, Name: out.DisplayName, Database: out.DisplayName,
		QueryURI: out.Properties.QueryServiceURI, handle: handle{w.env}}
	if len(out.Properties.DatabasesItemIDs) == 0 {
		return eh, fmt.Errorf("eventhouse %s was created without a default database (properties.databasesItemIds is empty)", eh.ID)
	}
	eh.DatabaseID = out.Properties.DatabasesItemIDs[0]
	return eh, nil
}

// Item returns the Eventhouse as a generic item.
func (eh Eventhouse) Item() Item {
	return Item{ID: eh.ID, WorkspaceID: eh.WorkspaceID, Type: "Eventhouse", Name: eh.Name, handle: handle{eh.env}}
}

// AddDatabase creates another KQL database named name in the Eventhouse
// (Fabric's creationPayload {databaseType: ReadWrite, parentEventhouseItemId})
// and fails the test if it cannot. Pass its Name to BindEventhouse.
func (eh Eventhouse) AddDatabase(name string) KQLDatabase {
	eh.env.t.Helper()
	db, err := eh.TryAddDatabase(name)
	if err != nil {
		eh.env.t.Fatalf("fabrictest: create KQL database %q in eventhouse %s: %v", name, eh.ID, err)
	}
	return db
}

// TryAddDatabase is AddDatabase that returns the error instead of failing
// the test.
func (eh Eventhouse) TryAddDatabase(name string) (KQLDatabase, error) {
	body := map[string]any{"displayName": name,
		"creationPayload": map[string]any{"databaseType": "ReadWrite", "parentEventhouseItemId": eh.ID}}
	var out itemJSON
	p := "/v1/workspaces/" + url.PathEscape(eh.WorkspaceID) + "/kqlDatabases"
	if _, err := eh.env.do(http.MethodPost, p, nil, body, 0, &out); err != nil {
		return KQLDatabase{}, err
	}
	return KQLDatabase{ID: out.ID, Name: out.DisplayName, EventhouseID: eh.ID}, nil
}

// Rows reads every row of table in the Eventhouse's default database (or
// the one named) through the Kusto SDK and fails the test if it cannot. See
// Env.KustoRows.
func (eh Eventhouse) Rows(table string, database ...string) Rows {
	eh.env.t.Helper()
	return eh.env.KustoRows(eh.db(database), table)
}

// TryRows is Rows that returns the error instead of failing the test.
func (eh Eventhouse) TryRows(table string, database ...string) (Rows, error) {
	return eh.env.TryKustoRows(eh.db(database), table)
}

// RowsFunc returns TryRows as a function for gomega's Eventually.
func (eh Eventhouse) RowsFunc(table string, database ...string) func() (Rows, error) {
	return func() (Rows, error) { return eh.TryRows(table, database...) }
}

func (eh Eventhouse) db(database []string) string {
	if len(database) > 0 && database[0] != "" {
		return database[0]
	}
	return eh.Database
}

// BindEventhouse binds the Eventstream to table (created, and widened, by
// the destination) in the Eventhouse's default database, or in the database
// named, and fails the test unless the emulator answers 2xx. Binding the
// same table to another database re-points the destination. Every table and
// column name is quoted, so keywords such as kind are fine.
func (es Eventstream) BindEventhouse(eh Eventhouse, table string, database ...string) Destination {
	es.env.t.Helper()
	d, err := es.TryBindEventhouse(eh, table, database...)
	if err != nil {
		es.env.t.Fatalf("fabrictest: bind eventstream %s to table %q of eventhouse %s: %v", es.ID, table, eh.ID, err)
	}
	return d
}

// TryBindEventhouse is BindEventhouse that returns the error (an *APIError,
// such as 404 ItemNotFound for an unknown database) instead of failing the
// test.
func (es Eventstream) TryBindEventhouse(eh Eventhouse, table string, database ...string) (Destination, error) {
	body := map[string]any{"type": "Eventhouse", "itemId": eh.ID, "table": table}
	if len(database) > 0 && database[0] != "" {
		body["database"] = database[0]
	}
	return es.bind(body, eh.WorkspaceID)
}

// ------------------------------------------------------------------ Kusto engine

// KQLURL is the Kusto engine Eventhouse destinations ingest into ("" when
// the environment has none; see WithKustoFake and WithKQL).
func (e *Env) KQLURL() string { return e.c.kqlURL }

// KustoFake returns the in-process Kusto engine WithKustoFake started (to
// inject faults, or to look at the commands it received), or nil.
func (e *Env) KustoFake() *kustofake.Server { return e.c.kusto }

// KustoRows reads every row of table in database through azure-kusto-go
// (a v2 query of the quoted table name), as column → value maps: string,
// int64, float64, bool, time.Time, the decoded JSON of a dynamic (numbers as
// json.Number), or nil. Kusto strings are never null: a missing string
// reads as "". It fails the test if it cannot, for instance when the table
// does not exist yet.
func (e *Env) KustoRows(database, table string) Rows {
	e.t.Helper()
	rs, err := e.TryKustoRows(database, table)
	if err != nil {
		e.t.Fatalf("fabrictest: %v", err)
	}
	return rs
}

// TryKustoRows is KustoRows that returns the error (an
// *eventhouse.EngineError for the engine's refusal) instead of failing the
// test.
func (e *Env) TryKustoRows(database, table string) (Rows, error) {
	c, err := e.c.kustoClient()
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(e.ctx, e.c.cfg.callTimeout)
	defer cancel()
	rs, err := c.Rows(ctx, database, table)
	if err != nil {
		return nil, fmt.Errorf("read Kusto table %q of database %q: %w", table, database, err)
	}
	return Rows(rs), nil
}

// KustoRowsFunc returns TryKustoRows as a function for gomega's Eventually.
func (e *Env) KustoRowsFunc(database, table string) func() (Rows, error) {
	return func() (Rows, error) { return e.TryKustoRows(database, table) }
}

// KustoCount is the number of rows of table in database (T | count); it
// fails the test if it cannot.
func (e *Env) KustoCount(database, table string) int64 {
	e.t.Helper()
	n, err := e.TryKustoCount(database, table)
	if err != nil {
		e.t.Fatalf("fabrictest: %v", err)
	}
	return n
}

// TryKustoCount is KustoCount that returns the error instead of failing the
// test.
func (e *Env) TryKustoCount(database, table string) (int64, error) {
	c, err := e.c.kustoClient()
	if err != nil {
		return 0, err
	}
	ctx, cancel := context.WithTimeout(e.ctx, e.c.cfg.callTimeout)
	defer cancel()
	n, err := c.Count(ctx, database, table)
	if err != nil {
		return 0, fmt.Errorf("count Kusto table %q of database %q: %w", table, database, err)
	}
	return n, nil
}

// startKusto starts the in-process engine when WithKustoFake asked for one
// and returns the emulator option that attaches the engine, if any.
func (c *core) startKusto() (opts []emulator.Option, err error) {
	if c.cfg.kustoFake {
		defer func() {
			if r := recover(); r != nil { // kustofake.New panics when it cannot listen
				err = fmt.Errorf("start kustofake: %v", r)
			}
		}()
		k := kustofake.New()
		c.kusto = k
		c.addCloser(func() error { k.Close(); return nil })
		c.kqlURL = k.URL()
	} else {
		c.kqlURL = c.cfg.kqlURL
	}
	if c.kqlURL == "" {
		return nil, nil
	}
	return []emulator.Option{emulator.WithKQLURL(c.kqlURL)}, nil
}

// kustoClient returns the environment's SDK client, creating it on first use.
func (c *core) kustoClient() (*eventhouse.Client, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.kql != nil {
		return c.kql, nil
	}
	if c.kqlURL == "" {
		return nil, errors.New("the environment has no Kusto engine: start it with fabrictest.WithKustoFake() (in-process) or fabrictest.WithKQL(url)")
	}
	cl, err := eventhouse.New(c.kqlURL)
	if err != nil {
		return nil, fmt.Errorf("kusto client for %s: %w", c.kqlURL, err)
	}
	c.addCloser(cl.Close)
	c.kql = cl
	return cl, nil
}
