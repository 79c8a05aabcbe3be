package control

import (
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/fabrictest/fabrictest/emulator/internal/fabricerr"
)

// tableName is Fabric's Lakehouse table rule (lakehouse/swagger.json):
// letters, digits and underscores, not all digits, at most 256 characters,
// less one here: a table is a directory, and filesystems (ext4, APFS,
// NTFS) hold names of at most 255 bytes. The rule is also what keeps a
// table name from reaching outside Tables/.
var (
	tableName  = regexp.MustCompile(`^[A-Za-z0-9_]{1,` + strconv.Itoa(MaxTableName) + `}$`)
	onlyDigits = regexp.MustCompile(`^[0-9]+$`)
)

// MaxTableName is the longest table name, the filesystem's limit on a
// directory name.
const MaxTableName = 255

// ValidTableName checks a Lakehouse table name; field names it in errors.
func ValidTableName(field, name string) error {
	if len(name) > MaxTableName {
		return fabricerr.BadParameter(field, "a table name is at most %d characters (the emulator keeps each table in a directory of that name); got %d", MaxTableName, len(name))
	}
	if !tableName.MatchString(name) || onlyDigits.MatchString(name) {
		return fabricerr.BadParameter(field, "%q is not a valid table name: use 1 to %d letters, digits and underscores, not only digits", name, MaxTableName)
	}
	return nil
}

// lakehouseName is Fabric's Lakehouse naming rule: letters, digits and
// underscores, starting with a letter, at most 123 characters.
var lakehouseName = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_]{0,122}$`)

// kustoName is Fabric's rule for Eventhouse and KQL database names.
var kustoName = regexp.MustCompile(`^[A-Za-z0-9._-]{1,256}$`)

// ValidName checks the display name of an item of type typ: a Lakehouse's
// and a Kusto item's rules of their own, else the generic one.
func ValidName(typ, name string) error {
	switch typ {
	case TypeLakehouse:
		if !lakehouseName.MatchString(name) {
			return fabricerr.BadParameter("displayName", "%q is not a valid Lakehouse name: start with a letter, then letters, digits or underscores, at most 123 characters", name)
		}
		return nil
	case TypeEventhouse, TypeKQLDatabase:
		if !kustoName.MatchString(name) {
			return fabricerr.BadParameter("displayName", "%q is not a valid name: use 1 to 256 letters, digits, '.', '_' or '-'", name)
		}
		return nil
	}
	return ValidItemName(name)
}

// ValidItemName is Fabric's generic display-name rule: required, at most
// 256 characters.
func ValidItemName(name string) error {
	switch {
	case strings.TrimSpace(name) == "":
		return fabricerr.BadParameter("displayName", "is required")
	case utf8.RuneCountInString(name) > 256:
		return fabricerr.BadParameter("displayName", "is longer than 256 characters")
	}
	return nil
}

// ValidDescription checks an item's description: at most 256 characters.
func ValidDescription(d string) error {
	if utf8.RuneCountInString(d) > 256 {
		return fabricerr.BadParameter("description", "is longer than 256 characters (%d)", utf8.RuneCountInString(d))
	}
	return nil
}

// NameInUse answers a display name another item of type typ has.
func NameInUse(typ, name string) error {
	return fabricerr.Invalid(fabricerr.ItemDisplayNameAlreadyInUse,
		"Requested '%s' is already in use by another %s in this workspace", name, typ)
}

// Kafka client settings a connection or a source may name.
var (
	SecurityProtocols = []string{"PLAINTEXT", "SASL_PLAINTEXT", "SSL", "SASL_SSL"}
	SASLMechanisms    = []string{"PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512"}
)

// OneOf returns the canonical spelling of v (trimmed) in allowed
// (case-insensitive).
func OneOf(v string, allowed []string) (string, bool) {
	for _, a := range allowed {
		if strings.EqualFold(a, strings.TrimSpace(v)) {
			return a, true
		}
	}
	return "", false
}
