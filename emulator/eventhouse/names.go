package eventhouse

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// maxNameLen is Kusto's limit on an entity name, in characters.
const maxNameLen = 1024

// QuoteName returns name as a bracketed KQL name, ['name'], with backslash
// and single quote escaped as the string-literal rules require. Quoting is
// always legal, so it is applied to every name, keyword or not.
func QuoteName(name string) string {
	return "['" + escapeSingleQuoted(name) + "']"
}

// kqlString returns s as a single-quoted KQL string literal.
func kqlString(s string) string {
	return "'" + escapeSingleQuoted(s) + "'"
}

func escapeSingleQuoted(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch r {
		case '\\':
			b.WriteString(`\\`)
		case '\'':
			b.WriteString(`\'`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

func validNameRune(r rune) bool {
	return unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_' || r == ' ' || r == '.' || r == '-'
}

// ValidateName reports whether name is a valid Kusto entity name (table,
// column): 1 to 1024 letters, digits, '_', ' ', '.' or '-', not starting or
// ending with "__". Keywords are valid names; they are quoted when used.
func ValidateName(name string) error {
	n := utf8.RuneCountInString(name)
	switch {
	case n == 0:
		return fmt.Errorf("invalid Kusto name: empty")
	case n > maxNameLen:
		return fmt.Errorf("invalid Kusto name %.40q…: longer than %d characters", name, maxNameLen)
	case strings.HasPrefix(name, "__") || strings.HasSuffix(name, "__"):
		return fmt.Errorf("invalid Kusto name %q: names starting or ending with \"__\" are reserved", name)
	}
	for _, r := range name {
		if !validNameRune(r) {
			return fmt.Errorf("invalid Kusto name %q: %q is not a letter, digit, '_', ' ', '.' or '-'", name, r)
		}
	}
	return nil
}

// ColumnName maps an event field name to the Kusto column it is written to:
// valid names are kept; any character other than a letter, digit, '_', ' ',
// '.' or '-' becomes '_'; an empty name becomes "f"; a leading or trailing
// "__" gets an "f" before or after it; and the result is cut to 1024
// characters.
func ColumnName(field string) string {
	if ValidateName(field) == nil {
		return field
	}
	var b strings.Builder
	n := 0
	for _, r := range field {
		if n == maxNameLen-2 { // leave room for the "f" guards
			break
		}
		if validNameRune(r) {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
		n++
	}
	s := b.String()
	if s == "" {
		return "f"
	}
	if strings.HasPrefix(s, "__") {
		s = "f" + s
	}
	if strings.HasSuffix(s, "__") {
		s += "f"
	}
	return s
}
