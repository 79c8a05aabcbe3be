package definition

import (
	"fmt"
	"slices"
	"strings"
)

// manageFields is a ManageFields node's output as it is read.
type manageFields struct {
	keep      []any
	rename    map[string]any
	cast      map[string]any
	compute   []map[string]any
	computeAt []string
}

// manageFieldsSpec maps ManageFields {columns: [{type: Rename | Cast |
// FunctionCall, alias, properties}]} onto a pipeline ManageFields: a
// projection onto the columns listed.
func manageFieldsSpec(n *Node) (map[string]any, error) {
	cols, _ := n.Props["columns"].([]any)
	if len(cols) == 0 {
		return nil, BadNode(n, "properties.columns", "want a non-empty array of {type, alias, properties}")
	}
	mf := manageFields{rename: map[string]any{}, cast: map[string]any{}}
	for i, x := range cols {
		if err := mf.column(n, fmt.Sprintf("properties.columns[%d]", i), x); err != nil {
			return nil, err
		}
	}
	keep, err := keepComputed(n, mf.keep, mf.rename, mf.compute, mf.computeAt)
	if err != nil {
		return nil, err
	}
	spec := map[string]any{"type": "ManageFields", "name": n.Name, "keep": keep}
	if len(mf.rename) > 0 {
		spec["rename"] = mf.rename
	}
	if len(mf.cast) > 0 {
		spec["cast"] = mf.cast
	}
	if len(mf.compute) > 0 {
		spec["compute"] = mf.compute
	}
	return spec, nil
}

// column adds the column at (x) to mf.
func (mf *manageFields) column(n *Node, at string, x any) error {
	cm, ok := x.(map[string]any)
	if !ok {
		return BadNode(n, at, "want {type, alias, properties}")
	}
	cp, _ := cm["properties"].(map[string]any)
	typ := str(cm, "type")
	switch strings.ToLower(typ) {
	case "rename", "cast":
	case "functioncall":
		c, err := functionCall(n, at, cm, cp)
		if err != nil {
			return err
		}
		mf.compute, mf.computeAt = append(mf.compute, c), append(mf.computeAt, at)
		return nil
	default:
		return BadNode(n, at+".type", "%q is not Rename, Cast or FunctionCall", typ)
	}
	col, err := columnName(n, at+".properties.column", cp["column"])
	if err != nil {
		return err
	}
	if !slices.Contains(mf.keep, any(col)) {
		mf.keep = append(mf.keep, col)
	}
	if strings.EqualFold(typ, "cast") {
		tt := str(cp, "targetDataType")
		if tt == "" {
			return BadNode(n, at+".properties.targetDataType", "required")
		}
		mf.cast[col] = tt
	}
	if alias := str(cm, "alias"); alias != "" && alias != col {
		if prev, ok := mf.rename[col]; ok && prev != alias {
			return BadNode(n, at+".alias", "column %q is already output as %q; the emulator outputs a column once", col, prev)
		}
		mf.rename[col] = alias
	}
	return nil
}
