package eventhouse

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"

	"github.com/Azure/azure-kusto-go/azkustodata"
	"github.com/Azure/azure-kusto-go/azkustodata/kql"
	trustedEndpoints "github.com/Azure/azure-kusto-go/azkustodata/trusted_endpoints"

	"github.com/fabrictest/fabrictest/emulator/rows"
)

// DefaultMaxCommandBytes is the CSV size above which a batch is split into
// several .ingest inline commands. Kusto documents no limit for inline
// ingestion but calls it a tool for small volumes; 4 MiB matches the SDK's
// streaming-ingest request cap.
const DefaultMaxCommandBytes = 4 << 20

// Client ingests rows into the tables of one Kusto engine. It is safe for
// concurrent use.
type Client struct {
	kusto      *azkustodata.Client
	endpoint   string
	maxBytes   int
	onConflict func(Conflict)

	mu      sync.Mutex
	schemas map[schemaKey][]column // last schema seen per table (a hint only)
}

type schemaKey struct{ db, table string }

// Conflict is a value Ingest could not write in its column's type (written as
// null instead), or a field dropped because another field of the same row
// maps to the same column name.
type Conflict struct {
	Database string
	Table    string
	// Row is the index of the row in the batch.
	Row int
	// Column is the column; Field the event field it came from.
	Column string
	Field  string
	// ColumnType is the column's Kusto type ("" for a name collision).
	ColumnType string
	Value      any
	// Reason says what happened, e.g. "value does not fit type long".
	Reason string
}

// Option configures a Client.
type Option func(*options)

type options struct {
	hc          *http.Client
	maxBytes    int
	onConflict  func(Conflict)
	trustedHost bool
}

// WithHTTPClient makes the SDK use hc.
func WithHTTPClient(hc *http.Client) Option { return func(o *options) { o.hc = hc } }

// WithMaxCommandBytes sets the estimated CSV size above which a batch is split
// into several .ingest inline commands (DefaultMaxCommandBytes by default).
func WithMaxCommandBytes(n int) Option { return func(o *options) { o.maxBytes = n } }

// WithConflictHandler receives every value written as null because it does
// not fit its column's type, and every field dropped by a name collision. It
// is called synchronously from Ingest.
func WithConflictHandler(f func(Conflict)) Option { return func(o *options) { o.onConflict = f } }

// WithTrustedHost adds the endpoint's host to the SDK's process-wide list of
// trusted Kusto hosts. Loopback hosts are always trusted; a kustainer reached
// by another name (a compose service such as http://kusto:8080) needs this.
// Use it during setup: the SDK reads that list without locking.
func WithTrustedHost() Option { return func(o *options) { o.trustedHost = true } }

var trustMu sync.Mutex

// New returns a Client for the engine at endpoint (e.g. http://127.0.0.1:8080).
// No credentials are sent: the stand-in and kustainer need none, and the SDK
// refuses to send a token over plain HTTP anyway.
func New(endpoint string, opts ...Option) (*Client, error) {
	o := options{maxBytes: DefaultMaxCommandBytes}
	for _, opt := range opts {
		opt(&o)
	}
	u, err := url.Parse(endpoint)
	switch {
	case err != nil:
		return nil, fmt.Errorf("eventhouse: parse endpoint: %w", err)
	case u.Scheme != "http" && u.Scheme != "https":
		return nil, fmt.Errorf("eventhouse: endpoint %q: scheme must be http or https", endpoint)
	case u.Host == "":
		return nil, fmt.Errorf("eventhouse: endpoint %q has no host", endpoint)
	case u.RawQuery != "" || u.Fragment != "" || strings.ContainsAny(endpoint, ";="):
		return nil, fmt.Errorf("eventhouse: endpoint %q: no query, fragment, ';' or '=' allowed", endpoint)
	case o.maxBytes <= 0:
		return nil, fmt.Errorf("eventhouse: max command bytes must be positive, not %d", o.maxBytes)
	}
	if o.trustedHost {
		trustMu.Lock()
		err := trustedEndpoints.Instance.AddTrustedHosts([]trustedEndpoints.MatchRule{{Suffix: u.Hostname(), Exact: true}}, false)
		trustMu.Unlock()
		if err != nil {
			return nil, fmt.Errorf("eventhouse: trust host %q: %w", u.Hostname(), err)
		}
	}
	var sdkOpts []azkustodata.Option
	if o.hc != nil {
		sdkOpts = append(sdkOpts, azkustodata.WithHttpClient(o.hc))
	}
	kc, err := azkustodata.New(azkustodata.NewConnectionStringBuilder(endpoint), sdkOpts...)
	if err != nil {
		return nil, fmt.Errorf("eventhouse: create Kusto client: %w", err)
	}
	return &Client{kusto: kc, endpoint: endpoint, maxBytes: o.maxBytes, onConflict: o.onConflict, schemas: map[schemaKey][]column{}}, nil
}

// Endpoint is the engine URL the client was created with.
func (c *Client) Endpoint() string { return c.endpoint }

// Kusto is the underlying SDK client, for queries of one's own.
func (c *Client) Kusto() *azkustodata.Client { return c.kusto }

// Close releases idle connections.
func (c *Client) Close() error { return c.kusto.Close() }

// mappedRow is a row keyed by column name.
type mappedRow map[string]any

// mapRows maps field names to column names, reporting collisions.
func (c *Client) mapRows(ctx context.Context, db, table string, batch []rows.Row) []mappedRow {
	out := make([]mappedRow, len(batch))
	for i, r := range batch {
		m := make(mappedRow, len(r))
		source := make(map[string]string, len(r))
		fields := make([]string, 0, len(r))
		for f := range r {
			fields = append(fields, f)
		}
		slices.Sort(fields)
		for _, f := range fields {
			col := ColumnName(f)
			prev, taken := source[col]
			if taken && prev != col && f == col {
				c.conflict(ctx, Conflict{Database: db, Table: table, Row: i, Column: col, Field: prev, Value: r[prev],
					Reason: fmt.Sprintf("field %q maps to column %q, which field %q already names", prev, col, f)})
				taken = false
			}
			if taken {
				c.conflict(ctx, Conflict{Database: db, Table: table, Row: i, Column: col, Field: f, Value: r[f],
					Reason: fmt.Sprintf("field %q maps to column %q, already taken by field %q", f, col, prev)})
				continue
			}
			m[col], source[col] = r[f], f
		}
		out[i] = m
	}
	return out
}

func (c *Client) conflict(ctx context.Context, cf Conflict) {
	if c.onConflict != nil {
		c.onConflict(cf)
	}
	if f, ok := ctx.Value(conflictsKey{}).(func(Conflict)); ok {
		f(cf)
	}
}

type conflictsKey struct{}

// WithConflicts returns a copy of ctx that makes Ingest report the
// conflicts of that call to f too (besides the client's handler set with
// WithConflictHandler): a client shared by several callers can tell each
// its own. f is called synchronously from Ingest.
func WithConflicts(ctx context.Context, f func(Conflict)) context.Context {
	return context.WithValue(ctx, conflictsKey{}, f)
}

// Ingest writes a batch of rows into table of database, creating the table
// and adding columns as needed (only creating it, under KeepSchema), in one
// or more .ingest inline commands tagged with tag. Calling it again with the same rows and tag after a failure adds
// no second copy. An empty batch does nothing. Engine failures, and
// requests that got no answer, are *EngineError.
func (c *Client) Ingest(ctx context.Context, database, table string, batch []rows.Row, tag string) error {
	switch {
	case len(batch) == 0:
		return nil
	case strings.TrimSpace(database) == "":
		return errors.New("eventhouse: ingest: empty database name")
	case tag == "":
		return errors.New("eventhouse: ingest: empty ingest tag")
	}
	if err := ValidateName(table); err != nil {
		return fmt.Errorf("eventhouse: ingest into table: %w", err)
	}

	mapped := c.mapRows(ctx, database, table, batch)
	if keepsSchema(ctx) {
		schema, exists, err := c.existingSchema(ctx, database, table)
		if err != nil {
			return err
		}
		if exists {
			return c.ingestParts(ctx, database, table, tag, schema, c.project(ctx, database, table, schema, mapped))
		}
	}
	inferred, names := inferColumns(mapped)

	key := schemaKey{strings.ToLower(database), table}
	c.mu.Lock()
	known := c.schemas[key]
	c.mu.Unlock()

	cols := mergeList(known, inferred, names)
	if err := c.createMerge(ctx, database, table, cols); err != nil {
		// Perhaps a column exists with another type than the cached schema
		// (or none) said: read the table and merge with its types.
		actual, serr := c.showSchema(ctx, database, table)
		if serr != nil {
			return err
		}
		again := mergeList(actual, inferred, names)
		if slices.Equal(again, cols) {
			return err
		}
		if err := c.createMerge(ctx, database, table, again); err != nil {
			return err
		}
	}
	schema, err := c.showSchema(ctx, database, table)
	if err != nil {
		return err
	}
	c.mu.Lock()
	c.schemas[key] = schema
	c.mu.Unlock()

	types := make(map[string]string, len(schema))
	for _, col := range schema {
		types[col.Name] = col.Type
	}
	for _, n := range names {
		if _, ok := types[n]; !ok {
			return fmt.Errorf("eventhouse: ingest into %s in database %q: column %s is missing from the table after .create-merge", QuoteName(table), database, QuoteName(n))
		}
	}
	return c.ingestParts(ctx, database, table, tag, schema, mapped)
}

// ingestParts writes mapped in the order of schema, in one .ingest inline
// command per part of at most maxBytes (part i tagged "<tag>#<i>" when
// there are several).
func (c *Client) ingestParts(ctx context.Context, database, table, tag string, schema []column, mapped []mappedRow) error {
	parts := split(mapped, c.maxBytes)
	first := 0
	for i, part := range parts {
		partTag := tag
		if len(parts) > 1 {
			partTag = fmt.Sprintf("%s#%d", tag, i)
		}
		data := c.encode(ctx, database, table, schema, part, first)
		first += len(part)
		if err := c.ingestInline(ctx, database, table, partTag, data); err != nil {
			if len(parts) > 1 {
				return fmt.Errorf("eventhouse: ingest part %d of %d: %w", i+1, len(parts), err)
			}
			return err
		}
	}
	return nil
}

// encode writes a part of a batch as CSV in the table's column order.
func (c *Client) encode(ctx context.Context, db, table string, schema []column, part []mappedRow, firstRow int) string {
	var b strings.Builder
	for i, r := range part {
		for j, col := range schema {
			if j > 0 {
				b.WriteByte(',')
			}
			v, present := r[col.Name]
			if !present {
				continue
			}
			text, quote, ok := encodeValue(col.Type, v)
			if !ok {
				c.conflict(ctx, Conflict{Database: db, Table: table, Row: firstRow + i, Column: col.Name, ColumnType: col.Type, Value: v,
					Reason: fmt.Sprintf("value does not fit type %s; written as null", col.Type)})
				continue
			}
			writeField(&b, text, quote)
		}
		b.WriteByte('\n')
	}
	return b.String()
}

// createMerge runs .create-merge table ['T'] (…).
func (c *Client) createMerge(ctx context.Context, db, table string, cols []column) error {
	stmt := kql.New(".create-merge table ").AddUnsafe(QuoteName(table)).AddLiteral(" (").AddUnsafe(createMergeText(cols)).AddLiteral(")")
	if _, err := c.kusto.Mgmt(ctx, db, stmt); err != nil {
		return engineError("create-merge table", db, table, stmt.String(), err)
	}
	return nil
}

// showSchema runs .show table ['T'] schema as json.
func (c *Client) showSchema(ctx context.Context, db, table string) ([]column, error) {
	stmt := kql.New(".show table ").AddUnsafe(QuoteName(table)).AddLiteral(" schema as json")
	ds, err := c.kusto.Mgmt(ctx, db, stmt)
	if err != nil {
		return nil, engineError("show table schema", db, table, stmt.String(), err)
	}
	tables := ds.Tables()
	if len(tables) == 0 || len(tables[0].Rows()) == 0 {
		return nil, fmt.Errorf("eventhouse: show table schema %s in database %q: empty answer", QuoteName(table), db)
	}
	text, err := tables[0].Rows()[0].StringByName("Schema")
	if err != nil {
		return nil, fmt.Errorf("eventhouse: show table schema %s in database %q: %w", QuoteName(table), db, err)
	}
	return parseSchema(text)
}

// ingestInline runs one .ingest inline command.
func (c *Client) ingestInline(ctx context.Context, db, table, tag, data string) error {
	tags, _ := json.Marshal([]string{"ingest-by:" + tag})
	ifNotExists, _ := json.Marshal([]string{tag})
	stmt := kql.New(".ingest inline into table ").AddUnsafe(QuoteName(table)).
		AddLiteral(" with (tags=").AddUnsafe(kqlString(string(tags))).
		AddLiteral(", ingestIfNotExists=").AddUnsafe(kqlString(string(ifNotExists))).
		AddLiteral(") <|\n").AddUnsafe(data)
	if _, err := c.kusto.Mgmt(ctx, db, stmt); err != nil {
		return engineError("ingest inline", db, table, stmt.String(), err)
	}
	return nil
}
