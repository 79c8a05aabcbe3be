package pipeline

import "strings"

func parseManageFields(o obj, name string) (Operator, error) {
	keep, err := o.strList("keep")
	if err != nil {
		return nil, err
	}
	drop, err := o.strList("drop")
	if err != nil {
		return nil, err
	}
	rename, err := o.strMap("rename")
	if err != nil {
		return nil, err
	}
	casts, err := o.strMap("cast")
	if err != nil {
		return nil, err
	}
	compute, err := parseCompute(o)
	if err != nil {
		return nil, err
	}
	m := ManageFields{Name: name, Keep: keep, Drop: drop, Rename: rename, Compute: compute}
	if casts != nil {
		m.Cast = map[string]FieldType{}
		for _, f := range sortedKeys(casts) {
			t, ok := fieldTypes[strings.ToLower(strings.TrimSpace(casts[f]))]
			if !ok {
				return nil, invalid(join(join(o.path, "cast"), f), "%q is not one of string, long, double, boolean, timestamp", casts[f])
			}
			m.Cast[f] = t
		}
	}
	return m, nil
}

var fieldTypes = map[string]FieldType{
	"string": TypeString, "nvarchar(max)": TypeString, "nvarchar": TypeString,
	"long": TypeLong, "bigint": TypeLong, "int": TypeLong, "integer": TypeLong,
	"double": TypeDouble, "float": TypeDouble,
	"boolean": TypeBoolean, "bool": TypeBoolean, "bit": TypeBoolean,
	"timestamp": TypeTimestamp, "datetime": TypeTimestamp,
}
