package eventhouse

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/Azure/azure-kusto-go/azkustodata/kql"
	"github.com/Azure/azure-kusto-go/azkustodata/query"
	"github.com/Azure/azure-kusto-go/azkustodata/value"
)

// Rows reads every row of a table back through the SDK (a v2 query of the
// quoted table name), as maps from column name to a Go value: string,
// int64 (long), int32 (int), float64, bool, time.Time, time.Duration,
// string (guid, decimal), the decoded JSON of a dynamic (numbers as
// json.Number), or nil.
func (c *Client) Rows(ctx context.Context, database, table string) ([]map[string]any, error) {
	_, out, err := c.read(ctx, database, table, kql.New("").AddUnsafe(QuoteName(table)))
	return out, err
}

// read runs stmt, a query of table, and returns its first result table:
// the column names in order and each row as Rows gives it.
func (c *Client) read(ctx context.Context, database, table string, stmt *kql.Builder) ([]string, []map[string]any, error) {
	ds, err := c.kusto.Query(ctx, database, stmt)
	if err != nil {
		return nil, nil, engineError("query", database, table, stmt.String(), err)
	}
	tables := ds.Tables()
	if len(tables) == 0 {
		return nil, nil, fmt.Errorf("eventhouse: query %s in database %q: no result table", QuoteName(table), database)
	}
	var cols []string
	for _, col := range tables[0].Columns() {
		cols = append(cols, col.Name())
	}
	var out []map[string]any
	for _, r := range tables[0].Rows() {
		m, err := rowMap(r)
		if err != nil {
			return nil, nil, fmt.Errorf("eventhouse: query %s in database %q: %w", QuoteName(table), database, err)
		}
		out = append(out, m)
	}
	return cols, out, nil
}

// Count is the number of rows of a table (T | count).
func (c *Client) Count(ctx context.Context, database, table string) (int64, error) {
	stmt := kql.New("").AddUnsafe(QuoteName(table)).AddLiteral(" | count")
	ds, err := c.kusto.Query(ctx, database, stmt)
	if err != nil {
		return 0, engineError("query", database, table, stmt.String(), err)
	}
	tables := ds.Tables()
	if len(tables) == 0 || len(tables[0].Rows()) != 1 {
		return 0, fmt.Errorf("eventhouse: count %s in database %q: unexpected answer", QuoteName(table), database)
	}
	n, err := tables[0].Rows()[0].LongByIndex(0)
	if err != nil || n == nil {
		return 0, fmt.Errorf("eventhouse: count %s in database %q: %v", QuoteName(table), database, err)
	}
	return *n, nil
}

// rowMap converts one SDK row.
func rowMap(r query.Row) (map[string]any, error) {
	m := make(map[string]any, len(r.Columns()))
	for i, col := range r.Columns() {
		v, err := r.Value(i)
		if err != nil {
			return nil, err
		}
		g, err := goValue(v)
		if err != nil {
			return nil, fmt.Errorf("column %q: %w", col.Name(), err)
		}
		m[col.Name()] = g
	}
	return m, nil
}

// goValue unwraps an SDK value; null is nil.
func goValue(v value.Kusto) (any, error) {
	switch x := v.(type) {
	case *value.String:
		return x.Value, nil
	case *value.Long:
		return deref(x.Ptr()), nil
	case *value.Int:
		return deref(x.Ptr()), nil
	case *value.Real:
		return deref(x.Ptr()), nil
	case *value.Bool:
		return deref(x.Ptr()), nil
	case *value.DateTime:
		return deref(x.Ptr()), nil
	case *value.Timespan:
		return deref(x.Ptr()), nil
	case *value.GUID:
		if p := x.Ptr(); p != nil {
			return p.String(), nil
		}
		return nil, nil
	case *value.Decimal:
		if p := x.Ptr(); p != nil {
			return p.String(), nil
		}
		return nil, nil
	case *value.Dynamic:
		if x.Value == nil {
			return nil, nil
		}
		dec := json.NewDecoder(bytes.NewReader(x.Value))
		dec.UseNumber()
		var out any
		if err := dec.Decode(&out); err != nil {
			return nil, fmt.Errorf("decode dynamic %q: %w", x.Value, err)
		}
		return out, nil
	}
	return v.GetValue(), nil
}

func deref[T any](p *T) any {
	if p == nil {
		return nil
	}
	return *p
}

// Take reads at most n rows of a table (T | take n), with the table's
// column names in order; values are as Rows gives them.
func (c *Client) Take(ctx context.Context, database, table string, n int) ([]string, [][]any, error) {
	cols, maps, err := c.read(ctx, database, table, kql.New("").AddUnsafe(QuoteName(table)).AddLiteral(" | take ").AddUnsafe(strconv.Itoa(max(n, 0))))
	if err != nil {
		return nil, nil, err
	}
	out := make([][]any, len(maps))
	for i, m := range maps {
		out[i] = make([]any, len(cols))
		for j, col := range cols {
			out[i][j] = m[col]
		}
	}
	return cols, out, nil
}
