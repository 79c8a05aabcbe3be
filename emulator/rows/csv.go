package rows

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"strconv"
	"unicode/utf8"
)

// decodeCSV reads value as CSV text in UTF-8 (the only encoding the
// definitions allow): with a header, its first line names the columns and
// each later line is a row; without, every line is a row whose columns
// are column1, column2, …. Every line must have as many fields as the
// first. Values stay text: CSV carries no types, and a destination's own
// rules convert them (a Lakehouse infers, an Eventhouse casts to its
// column). A header-only event makes no row.
func decodeCSV(value []byte, delim rune, header bool) ([]Row, error) {
	if !utf8.Valid(value) {
		return nil, errors.New("the text is not UTF-8")
	}
	value = bytes.TrimPrefix(value, []byte("\xef\xbb\xbf")) // a UTF-8 byte order mark
	r := csv.NewReader(bytes.NewReader(value))
	if delim != 0 {
		r.Comma = delim
	}
	r.ReuseRecord = false
	var names []string
	var out []Row
	for {
		rec, err := r.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("read CSV: %w", err)
		}
		if names == nil {
			if names, err = columnNames(rec, header); err != nil {
				return nil, err
			}
			if header {
				continue
			}
		}
		row := make(Row, len(rec))
		for i, v := range rec {
			row[names[i]] = v
		}
		out = append(out, row)
	}
	if names == nil {
		return nil, errors.New("the event is empty")
	}
	return out, nil
}

// columnNames are the columns of a CSV event: its header's fields, which
// must be distinct and not empty, or column1, column2, ….
func columnNames(first []string, header bool) ([]string, error) {
	names := make([]string, len(first))
	seen := make(map[string]bool, len(first))
	for i, f := range first {
		if !header {
			names[i] = "column" + strconv.Itoa(i+1)
			continue
		}
		if f == "" {
			return nil, fmt.Errorf("header field %d is empty", i+1)
		}
		if seen[f] {
			return nil, fmt.Errorf("header names column %q twice", f)
		}
		seen[f] = true
		names[i] = f
	}
	return names, nil
}
