package portal

import (
	"net/http"
	"net/url"
	"strings"
)

// maxListPages bounds how many pages of one list the portal follows.
const maxListPages = 1000

// getAll asks a list route as principal and follows its continuation
// tokens, returning every entry.
func getAll[T any](p *Portal, r *http.Request, principal, path string) ([]T, error) {
	var out []T
	next := path
	for range maxListPages {
		var page list[T]
		if err := p.get(r, principal, next, &page); err != nil {
			return out, err
		}
		out = append(out, page.Value...)
		if page.ContinuationToken == "" {
			return out, nil
		}
		sep := "?"
		if strings.Contains(path, "?") {
			sep = "&"
		}
		next = path + sep + "continuationToken=" + url.QueryEscape(page.ContinuationToken)
	}
	return out, nil
}
