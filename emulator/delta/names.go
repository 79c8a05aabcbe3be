package delta

import "strings"

// invalidNameChars are the printable characters Spark rejects in column
// names of a table without column mapping. Names with control characters
// (newline and tab included), and empty or blank names, never get here:
// rows.CheckName refuses them, and Append rejects their rows with a
// *RowLimitError.
const invalidNameChars = " ,;{}()="

// columnName maps a JSON member name to the name of the column (or struct
// member) that stores it: characters Spark rejects become '_'. Every other
// name, Unicode included, is kept as it is.
func columnName(key string) string {
	if !strings.ContainsAny(key, invalidNameChars) {
		return key
	}
	return strings.Map(func(r rune) rune {
		if strings.ContainsRune(invalidNameChars, r) {
			return '_'
		}
		return r
	}, key)
}

// foldName is the identity of a column name: Delta column names are unique
// case-insensitively.
func foldName(name string) string { return strings.ToLower(name) }
