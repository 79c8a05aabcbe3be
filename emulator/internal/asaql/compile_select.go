package asaql

import (
	"encoding/json"
	"strings"
)

// aggregates maps the aggregate functions of the subset (lower case) onto
// the pipeline's.
var aggregates = map[string]string{"count": "count", "sum": "sum", "avg": "avg", "min": "min", "max": "max"}

// castTypes maps CAST's types (lower case) onto the pipeline's.
var castTypes = map[string]string{
	"bigint": "long", "float": "double", "nvarchar(max)": "string", "bit": "boolean", "datetime": "timestamp",
}

// projection compiles a SELECT without GROUP BY: nothing for SELECT *,
// else one ManageFields.
func (c compiler) projection() ([]map[string]any, error) {
	if c.q.Star {
		return nil, nil
	}
	f := newFields()
	for _, it := range c.q.Items {
		if err := c.plainItem(f, it); err != nil {
			return nil, err
		}
	}
	return []map[string]any{f.spec(c.name)}, nil
}

// plainItem adds SELECT item it (no GROUP BY) to f.
func (c compiler) plainItem(f *fields, it Item) error {
	switch x := it.X.(type) {
	case *Column:
		return f.add(x.Pos, x.Path, aliasOr(it.Alias, x.Last))
	case *Cast:
		return castItem(f, x, it.Alias)
	case *Call:
		lower := strings.ToLower(x.Name)
		if _, ok := aggregates[lower]; ok {
			return unsupported(x.Pos, "the aggregate "+x.Name+"() without GROUP BY", "aggregates need GROUP BY with a window")
		}
		if lower == "system.timestamp" {
			return unsupported(x.Pos, "System.Timestamp() without GROUP BY", "")
		}
		return scalarItem(f, x, it.Alias)
	}
	return exprRefusal(it.X, "in SELECT")
}

// castItem adds CAST(column AS type) [AS alias] to f.
func castItem(f *fields, x *Cast, alias string) error {
	col, ok := x.X.(*Column)
	if !ok {
		return unsupported(x.Pos, "CAST of an expression", "CAST takes a column")
	}
	typ, ok := castTypes[strings.ToLower(x.Type)]
	if !ok {
		return unsupported(x.Pos, "CAST to "+x.Type, "the types are bigint, float, nvarchar(max), bit and datetime")
	}
	if err := f.add(x.Pos, col.Path, aliasOr(alias, col.Last)); err != nil {
		return err
	}
	f.cast[col.Path] = typ
	return nil
}

// scalarItem adds a scalar function call with alias to f; the pipeline
// checks the function and its arguments.
func scalarItem(f *fields, x *Call, alias string) error {
	if alias == "" {
		return syntax(x.Pos, "name the column %s() computes with AS", x.Name)
	}
	if x.Star {
		return syntax(x.Pos, "%s(*) is not a function call of the subset", x.Name)
	}
	args := []any{}
	for _, a := range x.Args {
		switch v := a.(type) {
		case *Column:
			args = append(args, map[string]any{"field": v.Path})
		case *Literal:
			args = append(args, map[string]any{"literal": v.Value})
		default:
			return exprRefusal(a, "as a function argument")
		}
	}
	if err := f.claim(x.Pos, alias); err != nil {
		return err
	}
	f.compute = append(f.compute, map[string]any{"fn": x.Name, "args": args, "as": alias})
	f.keep = append(f.keep, alias)
	return nil
}

// aliasOr is alias, or def when alias is "".
func aliasOr(alias, def string) string {
	if alias != "" {
		return alias
	}
	return def
}

// exprRefusal refuses expression x where it stands.
func exprRefusal(x Expr, where string) error {
	switch v := x.(type) {
	case *Binary:
		return unsupported(v.Pos, "the operator "+v.Op+" "+where, "")
	case *Not:
		return unsupported(v.Pos, "NOT "+where, "")
	case *IsNull:
		return unsupported(v.Pos, "IS NULL "+where, "")
	case *Like:
		return unsupported(v.Pos, "LIKE "+where, "")
	case *Literal:
		return unsupported(v.Pos, "a literal "+where, "")
	case *Call:
		return unsupported(v.Pos, "the function call "+v.Name+"() "+where, "")
	case *Cast:
		return unsupported(v.Pos, "CAST "+where, "")
	}
	return syntax(x.at(), "unexpected expression %s", where)
}

// number is the literal's numeric value as JSON, or "" when it is not one.
func number(x Expr) json.Number {
	if l, ok := x.(*Literal); ok {
		if n, ok := l.Value.(json.Number); ok {
			return n
		}
	}
	return ""
}
