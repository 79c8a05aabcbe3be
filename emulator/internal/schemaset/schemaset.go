// Package schemaset reads an Event Schema Set's definition: the Avro
// schemas of Fabric's schema registry and their versions.
//
// Microsoft's spec gives the item type (eventSchemaSet) and its one
// definition part, EventSchemaSetV1.json (fabric-rest-api-specs
// eventSchemaSet/, examples/GetEventSchemaSetDefinition.json), but not
// that part's content. The emulator reads it as
//
//	{"schemas": [{"name": "Reading", "versions": [{"version": 1, "schema": {…Avro…}}]}]}
//
// with Fabric's documented rules (fabric-docs, "Schema Registry - known
// limitations",
// https://learn.microsoft.com/fabric/real-time-intelligence/schema-sets/schema-registry-limitations):
// Avro schemas only; a schema name of 50 characters at most (a schema-aware
// Eventstream cannot process a longer one); every edit a new version; no
// compatibility checks between versions.
package schemaset

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/fabrictest/fabrictest/emulator/rows"
)

// PartPath is the definition part that holds the schemas.
const PartPath = "EventSchemaSetV1.json"

// MaxNameLength is the longest schema name a schema-aware Eventstream
// processes.
const MaxNameLength = 50

// Set is a decoded EventSchemaSetV1.json.
type Set struct {
	Schemas []Schema `json:"schemas"`
}

// Schema is one schema and its versions.
type Schema struct {
	Name     string    `json:"name"`
	Versions []Version `json:"versions"`
}

// Version is one version of a schema: its number and Avro schema.
type Version struct {
	Version int             `json:"version"`
	Schema  json.RawMessage `json:"schema"`
}

// Decode reads the base64 payload of an EventSchemaSetV1.json part and
// checks every schema: a name, at most MaxNameLength characters, distinct;
// versions numbered from 1 without repeats; each version a valid Avro
// schema.
func Decode(payload string) (Set, error) {
	var s Set
	raw, err := base64.StdEncoding.DecodeString(payload)
	if err != nil {
		return s, fmt.Errorf("decode %s: not base64: %w", PartPath, err)
	}
	if err := json.Unmarshal(raw, &s); err != nil {
		return s, fmt.Errorf("decode %s: %w", PartPath, err)
	}
	seen := map[string]bool{}
	for i, sc := range s.Schemas {
		if err := sc.check(); err != nil {
			return s, fmt.Errorf("%s schemas[%d]: %w", PartPath, i, err)
		}
		if seen[strings.ToLower(sc.Name)] {
			return s, fmt.Errorf("%s schemas[%d]: the name %q is taken", PartPath, i, sc.Name)
		}
		seen[strings.ToLower(sc.Name)] = true
	}
	return s, nil
}

// check checks one schema.
func (sc Schema) check() error {
	switch {
	case strings.TrimSpace(sc.Name) == "":
		return errors.New("a schema needs a name")
	case len([]rune(sc.Name)) > MaxNameLength:
		return fmt.Errorf("the name %q is over %d characters", sc.Name, MaxNameLength)
	case len(sc.Versions) == 0:
		return fmt.Errorf("schema %q has no version", sc.Name)
	}
	nums := map[int]bool{}
	for _, v := range sc.Versions {
		if v.Version < 1 || nums[v.Version] {
			return fmt.Errorf("schema %q: version %d is not a new number from 1", sc.Name, v.Version)
		}
		nums[v.Version] = true
		if _, err := rows.ParseAvroSchema(string(v.Schema)); err != nil {
			return fmt.Errorf("schema %q version %d: %w", sc.Name, v.Version, err)
		}
	}
	return nil
}

// Find returns the Avro text of schema name at version (0: the latest).
func (s Set) Find(name string, version int) (string, error) {
	for _, sc := range s.Schemas {
		if !strings.EqualFold(sc.Name, name) {
			continue
		}
		var best *Version
		for i, v := range sc.Versions {
			if v.Version == version || version == 0 && (best == nil || v.Version > best.Version) {
				best = &sc.Versions[i]
			}
		}
		if best == nil {
			return "", fmt.Errorf("schema %q has no version %d", name, version)
		}
		return string(best.Schema), nil
	}
	return "", fmt.Errorf("the set has no schema %q", name)
}
