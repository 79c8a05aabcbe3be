package api

import (
	"encoding/base64"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"

	"github.com/fabrictest/fabrictest/emulator/internal/control"
	"github.com/fabrictest/fabrictest/emulator/internal/fabricerr"
	"github.com/fabrictest/fabrictest/emulator/internal/store"
	"github.com/fabrictest/fabrictest/emulator/wire"
)

// getItemDefinition answers getDefinition of a stored (not run) item: its
// parts as stored, with .platform naming the item as it is now (a
// .platform is made when none was sent, as Fabric always returns one).
func (a definitionHandlers) getItemDefinition(c *call, it store.Item) error {
	if !definable(it.Type) {
		return notForItem(it)
	}
	def, err := a.plane.ItemDefinition(c.r.Context(), it)
	if err != nil {
		return err
	}
	if f := c.r.URL.Query().Get("format"); f != "" && !sameFormat(it.Type, f, def.Format) {
		return fabricerr.BadParameter("format", "the %s was stored in format %q; this emulator does not convert definitions to %q", it.Type, def.Format, f)
	}
	parts := make([]store.DefinitionPart, 0, len(def.Parts)+1)
	hasPlatform := false
	for _, p := range def.Parts {
		if strings.EqualFold(strings.TrimPrefix(p.Path, "/"), partPlatform) {
			hasPlatform = true
			b, _ := base64.StdEncoding.DecodeString(p.Payload)
			if out := renderPlatform(it, b); string(out) != string(b) {
				p.Payload = base64.StdEncoding.EncodeToString(out)
			}
		}
		parts = append(parts, p)
	}
	if !hasPlatform {
		parts = append(parts, store.DefinitionPart{Path: partPlatform, Payload: base64.StdEncoding.EncodeToString(renderPlatform(it, nil)), PayloadType: "InlineBase64"})
	}
	out := wire.Definition{Format: def.Format, Parts: make([]wire.DefinitionPart, len(parts))}
	for i, p := range parts {
		out.Parts[i] = wire.DefinitionPart(p)
	}
	return c.JSON(http.StatusOK, wire.DefinitionAnswer{Definition: out})
}

// sameFormat reports whether format a names the stored format b of typ
// ("" is the type's default).
func sameFormat(typ, a, b string) bool {
	norm := func(f string) string {
		if typ == "Notebook" && strings.EqualFold(f, "fabricGitSource") || typ == "SparkJobDefinition" && strings.EqualFold(f, "SparkJobDefinitionV1") {
			return ""
		}
		return strings.ToLower(f)
	}
	return norm(a) == norm(b)
}

// updateItemDefinition answers updateDefinition of a stored item; with
// ?updateMetadata=true the .platform part's displayName and description
// rename and describe the item.
func (a definitionHandlers) updateItemDefinition(c *call, it store.Item) error {
	if !definable(it.Type) {
		return notForItem(it)
	}
	updateMeta, raw, err := a.definitionUpdate(c)
	if err != nil {
		return err
	}
	def, err := decodeItemDefinition(it.Type, raw)
	if err != nil {
		return err
	}
	req := control.ItemDefinitionUpdate{Definition: def}
	if md, ok := platformOf(def); ok && updateMeta {
		req.Metadata = &md
	}
	ref := control.ItemRef{WorkspaceID: it.WorkspaceID, ID: it.ID, Type: it.Type}
	return answerOK(c, a.plane.UpdateItemDefinition(c.r.Context(), c.caller(), ref, req))
}

// definitionUpdate reads an updateDefinition call: its updateMetadata
// query parameter and its body's definition (required).
func (a definitionHandlers) definitionUpdate(c *call) (updateMeta bool, definition json.RawMessage, err error) {
	if q := c.r.URL.Query().Get("updateMetadata"); q != "" {
		if updateMeta, err = strconv.ParseBool(q); err != nil {
			return false, nil, fabricerr.BadParameter("updateMetadata", "want true or false, got %q", q)
		}
	}
	var req struct {
		Definition json.RawMessage `json:"definition"`
	}
	if err := a.decode(c, &req); err != nil {
		return false, nil, err
	}
	if len(req.Definition) == 0 || string(req.Definition) == "null" {
		return false, nil, fabricerr.BadParameter("definition", "required")
	}
	return updateMeta, req.Definition, nil
}
