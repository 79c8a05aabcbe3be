package delta

import "strings"

// invalidNameChars are the characters Spark rejects in column names of a
// table without column mapping.
const invalidNameChars = " ,;{}()\n\t="

// columnName maps a JSON member name to the name of the column (or struct
// member) that stores it: characters Spark rejects become '_', and the empty
// name becomes "_". Every other name, Unicode included, is kept as it is.
func columnName(key string) string {
	if key == "" {
		return "_"
	}
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
