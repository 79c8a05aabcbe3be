package onelake

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"io/fs"
	"net/http"
	"path"
	"sort"
	"strconv"
	"strings"
)

// entry is one path a listing names: rel is under the item.
type entry struct {
	rel string
	fi  fs.FileInfo
}

// listFrom resolves the item named by the first segment of a workspace
// path (directory= or prefix=) and returns the rest.
func (o *op) listFrom(p string) ([]string, error) {
	segs, err := splitPath(p)
	if err != nil {
		return nil, err
	}
	if len(segs) == 0 {
		return nil, invalidInput("OneLake lists within an item: set directory (DFS) or prefix (Blob) to {item}/…, the item as a GUID or name.Type")
	}
	if err := o.resolveItem(segs[0]); err != nil {
		return nil, err
	}
	return segs[1:], nil
}

// walk collects the paths under base (a folder under the item), all of
// them when recursive, else its children; staging files are skipped.
func (o *op) walk(base string, recursive bool) ([]entry, error) {
	root, err := o.openRoot()
	if err != nil {
		return nil, err
	}
	defer root.Close()
	fsys := root.FS()
	var out []entry
	err = fs.WalkDir(fsys, base, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if p == base {
			return nil
		}
		if strings.HasPrefix(d.Name(), tmpPrefix) || d.Type()&fs.ModeSymlink != 0 {
			return nil // staging files; links, which OneLake has not
		}
		fi, err := d.Info()
		if err != nil {
			return nil // gone since the walk read its folder
		}
		out = append(out, entry{rel: p, fi: fi})
		if d.IsDir() && !recursive {
			return fs.SkipDir
		}
		return nil
	})
	return out, err
}

// pathJSON is one path of the DFS listing, in the service's string form.
type pathJSON struct {
	Name          string `json:"name"`
	IsDirectory   string `json:"isDirectory,omitempty"`
	ContentLength string `json:"contentLength"`
	LastModified  string `json:"lastModified"`
	ETag          string `json:"etag"`
	Owner         string `json:"owner"`
	Group         string `json:"group"`
	Permissions   string `json:"permissions"`
}

// listPaths serves DFS GET ?resource=filesystem&directory=&recursive=
// &continuation=&maxResults=.
func (o *op) listPaths() error {
	q := o.r.URL.Query()
	o.dialect = dfsDialect
	rest, err := o.listFrom(q.Get("directory"))
	if err != nil {
		return err
	}
	base := "."
	if len(rest) > 0 {
		base = path.Join(rest...)
	}
	entries, err := o.walk(base, q.Get("recursive") == "true")
	if errors.Is(err, fs.ErrNotExist) {
		return pathNotFound(o.name(base))
	} else if err != nil {
		return err
	}
	page, next := paginate(entries, q.Get("continuation"), maxResults(q.Get("maxResults")))
	paths := make([]pathJSON, 0, len(page))
	for _, e := range page {
		p := pathJSON{Name: o.name(e.rel), ContentLength: strconv.FormatInt(e.fi.Size(), 10),
			LastModified: e.fi.ModTime().UTC().Format(http.TimeFormat), ETag: etag(e.fi),
			Owner: "$superuser", Group: "$superuser", Permissions: "rwxr-x---"}
		if e.fi.IsDir() {
			p.IsDirectory, p.ContentLength = "true", "0"
		}
		paths = append(paths, p)
	}
	if next != "" {
		o.w.Header().Set("x-ms-continuation", next)
	}
	o.w.Header().Set("Content-Type", "application/json;charset=utf-8")
	o.w.WriteHeader(http.StatusOK)
	return json.NewEncoder(o.w).Encode(map[string]any{"paths": paths})
}

// maxResults parses maxResults/maxresults: 5000 by default and at most.
func maxResults(s string) int {
	n, err := strconv.Atoi(s)
	if err != nil || n <= 0 || n > 5000 {
		return 5000
	}
	return n
}

// paginate sorts entries by path and returns the page after the opaque
// token, and the token of the next page ("" when none).
func paginate(entries []entry, token string, max int) ([]entry, string) {
	sort.Slice(entries, func(i, j int) bool { return entries[i].rel < entries[j].rel })
	if after, err := base64.RawURLEncoding.DecodeString(token); token != "" && err == nil {
		i := sort.Search(len(entries), func(i int) bool { return entries[i].rel > string(after) })
		entries = entries[i:]
	}
	if len(entries) <= max {
		return entries, ""
	}
	return entries[:max], base64.RawURLEncoding.EncodeToString([]byte(entries[max-1].rel))
}
