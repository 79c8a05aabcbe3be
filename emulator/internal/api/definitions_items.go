package api

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/fabrictest/fabrictest/emulator/internal/control"
	"github.com/fabrictest/fabrictest/emulator/internal/fabricerr"
	"github.com/fabrictest/fabrictest/emulator/internal/store"
)

// Definitions of the item types the emulator stores but does not run
// (every type but Eventstream, whose definition definitions.go compiles):
// create with `definition`, getDefinition and updateDefinition keep the
// parts exactly as sent (path, payload, payloadType, in order), after
// checking their shape: InlineBase64 that decodes, JSON parts that parse,
// no path twice, and the parts Microsoft's definition articles name as
// required (itemDefinitionRules).

// MissingDefinitionPart answers a definition without a part its item type requires.
const MissingDefinitionPart = "MissingDefinitionPart"

// defRule is what a definition of one item type must hold for a format.
type defRule struct {
	// formats maps each accepted format ("" the default) to the required
	// parts: each entry lists alternatives, one of which must be present.
	formats map[string][][]string
}

// itemDefinitionRules are the item types whose required parts Microsoft's
// "<type> definition" articles (learn.microsoft.com/rest/api/fabric/articles/
// item-management/definitions) name. Other types take any parts.
var itemDefinitionRules = map[string]defRule{
	"DataPipeline": {formats: map[string][][]string{"": {{"pipeline-content.json"}}}},
	"Notebook": {formats: map[string][][]string{
		"":                {{"notebook-content.py", "notebook-content.scala", "notebook-content.sql", "notebook-content.r"}},
		"fabricGitSource": {{"notebook-content.py", "notebook-content.scala", "notebook-content.sql", "notebook-content.r"}},
		"ipynb":           {{"notebook-content.ipynb"}},
	}},
	"SparkJobDefinition": {formats: map[string][][]string{
		"":                     {{"SparkJobDefinitionV1.json"}},
		"SparkJobDefinitionV1": {{"SparkJobDefinitionV1.json"}},
		"SparkJobDefinitionV2": {{"SparkJobDefinitionV2.json"}},
	}},
	"SemanticModel": {formats: map[string][][]string{"": {{"definition.pbism"}}, "TMSL": {{"definition.pbism"}}, "TMDL": {{"definition.pbism"}}}},
	"Report":        {formats: map[string][][]string{"": {{"definition.pbir"}}, "PBIR": {{"definition.pbir"}}, "PBIR-Legacy": {{"definition.pbir"}}}},
	"KQLQueryset":   {formats: map[string][][]string{"": {{"RealTimeQueryset.json"}}}},
	"KQLDashboard":  {formats: map[string][][]string{"": {{"RealTimeDashboard.json"}}}},
	"Reflex":        {formats: map[string][][]string{"": {{"ReflexEntities.json"}}}},
}

// definable reports whether the emulator keeps definitions of typ.
func definable(typ string) bool {
	row, ok := itemTypeOf(typ)
	return ok && row.definition && typ != TypeEventstream
}

// decodeItemDefinition checks the definition raw of an item of type typ
// and returns it as it will be stored.
func decodeItemDefinition(typ string, raw json.RawMessage) (store.Definition, error) {
	if !definable(typ) {
		return store.Definition{}, fabricerr.New(http.StatusBadRequest, "OperationNotSupportedForItem",
			"Fabric has no definition for items of type %s", typ)
	}
	var d struct {
		Format string                 `json:"format"`
		Parts  []store.DefinitionPart `json:"parts"`
	}
	if err := fabricerr.DecodeJSON(raw, &d); err != nil {
		return store.Definition{}, err
	}
	if d.Parts == nil {
		return store.Definition{}, fabricerr.BadParameter("definition.parts", "is required")
	}
	format, err := checkFormat(typ, d.Format)
	if err != nil {
		return store.Definition{}, err
	}
	seen := map[string]bool{}
	for i, p := range d.Parts {
		if err := checkPart(fmt.Sprintf("definition.parts[%d]", i), p, seen); err != nil {
			return store.Definition{}, err
		}
	}
	for _, alts := range itemDefinitionRules[typ].formats[format] {
		if !slices.ContainsFunc(alts, func(n string) bool { return seen[strings.ToLower(n)] }) {
			return store.Definition{}, fabricerr.New(http.StatusBadRequest, MissingDefinitionPart,
				"a %s definition needs the part %s", typ, strings.Join(alts, " or "))
		}
	}
	return store.Definition{Format: d.Format, Parts: d.Parts}, nil
}

// checkFormat returns the rule key of format for typ.
func checkFormat(typ, format string) (string, error) {
	rule, ok := itemDefinitionRules[typ]
	if !ok {
		return "", nil
	}
	for f := range rule.formats {
		if strings.EqualFold(f, format) {
			return f, nil
		}
	}
	return "", fabricerr.BadParameter("definition.format", "%q is not a format of %s definitions", format, typ)
}

// checkPart checks one part's shape; seen collects the lower-cased paths.
func checkPart(at string, p store.DefinitionPart, seen map[string]bool) error {
	path := strings.TrimPrefix(p.Path, "/")
	if strings.TrimSpace(path) == "" {
		return fabricerr.BadParameter(at+".path", "is required")
	}
	if seen[strings.ToLower(path)] {
		return fabricerr.BadParameter(at+".path", "%s is given twice", p.Path)
	}
	seen[strings.ToLower(path)] = true
	if p.PayloadType != "InlineBase64" {
		return fabricerr.BadParameter(at+".payloadType", "%q is not supported; want InlineBase64", p.PayloadType)
	}
	payload, err := base64.StdEncoding.DecodeString(p.Payload)
	if err != nil {
		return fabricerr.New(http.StatusBadRequest, CorruptedPayload, "%s (%s): the payload is not base64: %v", at, p.Path, err)
	}
	if isJSONPart(path) && !json.Valid(payload) {
		return fabricerr.New(http.StatusBadRequest, CorruptedPayload, "%s (%s): the payload is not JSON", at, p.Path)
	}
	return nil
}

// isJSONPart reports whether a part's path names a JSON document.
func isJSONPart(path string) bool {
	l := strings.ToLower(path)
	return strings.HasSuffix(l, ".json") || strings.HasSuffix(l, ".ipynb") || l == partPlatform || strings.HasSuffix(l, "/"+partPlatform)
}

// platformMetadata is the metadata of a .platform part.
type platformMetadata = control.PlatformMetadata

// platformOf returns the metadata of def's .platform part, if it has one.
func platformOf(def store.Definition) (platformMetadata, bool) {
	for _, p := range def.Parts {
		if strings.EqualFold(strings.TrimPrefix(p.Path, "/"), partPlatform) {
			b, _ := base64.StdEncoding.DecodeString(p.Payload)
			var pl struct {
				Metadata platformMetadata `json:"metadata"`
			}
			_ = json.Unmarshal(b, &pl)
			return pl.Metadata, true
		}
	}
	return platformMetadata{}, false
}

// renderPlatform returns the .platform part of it: the stored one as sent
// when its metadata names the item as it is, else the stored one (or a new
// one) with type, displayName and description set from the item.
func renderPlatform(it store.Item, stored []byte) []byte {
	pl := map[string]any{}
	_ = json.Unmarshal(stored, &pl)
	md, _ := pl["metadata"].(map[string]any)
	if md != nil && md["type"] == it.Type && md["displayName"] == it.DisplayName && (md["description"] == nil && it.Description == "" || md["description"] == it.Description) {
		return stored
	}
	if md == nil {
		md = map[string]any{}
	}
	if _, ok := pl["$schema"]; !ok {
		pl["$schema"] = "https://developer.microsoft.com/json-schemas/fabric/gitIntegration/platformProperties/2.0.0/schema.json"
	}
	md["type"], md["displayName"] = it.Type, it.DisplayName
	if it.Description != "" {
		md["description"] = it.Description
	} else {
		delete(md, "description")
	}
	pl["metadata"] = md
	if _, ok := pl["config"]; !ok {
		pl["config"] = map[string]any{"version": "2.0", "logicalId": "00000000-0000-0000-0000-000000000000"}
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	_ = enc.Encode(pl)
	return bytes.TrimRight(buf.Bytes(), "\n")
}
