package eventhouse

import (
	"context"
	"errors"
	"fmt"
	"strings"
)

type keepSchemaKey struct{}

// KeepSchema returns a copy of ctx that makes Ingest keep the columns of a
// table that already exists, as Kusto's own ingestion does: it maps each
// field to the column of its name and never adds a column, so a field the
// table has no column for is not written (Kusto: "Ingestion mappings",
// learn.microsoft.com/kusto/management/mappings). Each such field is
// reported to the conflict handlers with an empty ColumnType. A table that
// does not exist yet is still created from the batch.
func KeepSchema(ctx context.Context) context.Context {
	return context.WithValue(ctx, keepSchemaKey{}, true)
}

func keepsSchema(ctx context.Context) bool {
	keep, _ := ctx.Value(keepSchemaKey{}).(bool)
	return keep
}

// existingSchema reads table's columns; exists is false when the engine
// answers that the table is not there (EntityNotFound).
func (c *Client) existingSchema(ctx context.Context, db, table string) (schema []column, exists bool, err error) {
	schema, err = c.showSchema(ctx, db, table)
	var ee *EngineError
	if errors.As(err, &ee) && strings.Contains(ee.Code, "EntityNotFound") {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	return schema, true, nil
}

// project drops from batch the columns schema does not have, reporting
// each dropped field.
func (c *Client) project(ctx context.Context, db, table string, schema []column, batch []mappedRow) []mappedRow {
	has := make(map[string]bool, len(schema))
	for _, col := range schema {
		has[col.Name] = true
	}
	out := make([]mappedRow, len(batch))
	for i, r := range batch {
		kept := make(mappedRow, len(r))
		for col, v := range r {
			if has[col] {
				kept[col] = v
				continue
			}
			c.conflict(ctx, Conflict{Database: db, Table: table, Row: i, Column: col, Field: col, Value: v,
				Reason: fmt.Sprintf("table %s has no column %s; Kusto does not add one, so the field is not written", QuoteName(table), QuoteName(col))})
		}
		out[i] = kept
	}
	return out
}
