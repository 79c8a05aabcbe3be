package portal

import (
	"html/template"
	"net/url"
)

// funcs are the templates' helpers.
var funcs = template.FuncMap{
	"prefix": func() string { return Prefix },
	"esc":    url.PathEscape,
	"list":   func(s ...string) []string { return s },
	"add": func(n ...any) int64 {
		var sum int64
		for _, x := range n {
			switch x := x.(type) {
			case int:
				sum += int64(x)
			case int64:
				sum += x
			}
		}
		return sum
	},
	"itemURL": func(it item) string {
		coll, ok := itemPages[it.Type]
		if !ok {
			return ""
		}
		return Prefix + "workspaces/" + url.PathEscape(it.WorkspaceID) + "/" + coll + "/" + url.PathEscape(it.ID)
	},
	"statusClass": statusClass,
}

// itemPages maps the item types that have a page to their path segment.
var itemPages = map[string]string{"Eventstream": "eventstreams", "Lakehouse": "lakehouses", "Reflex": "reflexes", "Eventhouse": "eventhouses"}

// statusClass is the colour class of a status: ok, warn, bad, or none.
func statusClass(s string) string {
	switch s {
	case "Running", "Completed":
		return "ok"
	case "Paused", "NotStarted", "InProgress", "Unknown", "Creating", "Warning":
		return "warn"
	case "":
		return "none"
	}
	return "bad"
}
