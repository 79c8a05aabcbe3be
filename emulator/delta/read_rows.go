package delta

import (
	"fmt"
	"path/filepath"
)

// ReadRows reads rows offset to offset+limit of the table whose root is
// dir and whose state snap describes (from ReadState or ReadTable), in the
// order ReadTable gives them: it opens only the data files those rows are
// in, skipping the others by their stats' numRecords, so that a page of a
// large table costs a page. A file without numRecords in its stats is
// read to count its rows. It checks each file it reads as ReadTable does.
func ReadRows(dir string, snap *Snapshot, offset, limit int64) ([]map[string]any, error) {
	var out []map[string]any
	var at int64 // the index of the first row of the file at hand
	for _, f := range snap.Files {
		if int64(len(out)) >= limit {
			break
		}
		if f.NumRecords >= 0 && at+f.NumRecords <= offset {
			at += f.NumRecords
			continue
		}
		rs, err := readDataFile(filepath.Join(dir, filepath.FromSlash(f.Path)), f.Size, snap.Schema)
		if err != nil {
			return nil, fmt.Errorf("read delta table %s: file %s: %w", dir, f.Path, err)
		}
		if f.NumRecords >= 0 && int64(len(rs)) != f.NumRecords {
			return nil, fmt.Errorf("read delta table %s: file %s has %d rows, its stats say %d", dir, f.Path, len(rs), f.NumRecords)
		}
		lo := max(0, offset-at)
		at += int64(len(rs))
		if lo >= int64(len(rs)) {
			continue
		}
		hi := min(int64(len(rs)), lo+limit-int64(len(out)))
		out = append(out, rs[lo:hi]...)
	}
	return out, nil
}
