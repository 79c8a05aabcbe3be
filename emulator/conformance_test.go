package emulator_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fabrictest/fabrictest/emulator"
	"github.com/getkin/kin-openapi/openapi3"
)

// The conformance test drives every public Fabric route the emulator serves
// and validates each answer (status, body) against the operation's response
// in Microsoft's published OpenAPI (swagger 2.0) documents, read from
// ../shared/fabric-rest-api-specs (FABRIC_REST_API_SPECS overrides). The
// request bodies it sends are validated against the spec too.
//
// kin-openapi validates the bodies. It cannot load these documents as they
// are (swagger 2.0 split over files with relative $refs, one spelled
// ../../Common/; openapi2conv does not follow external refs), so specSet
// bundles the schemas an operation needs into one OpenAPI 3 document first:
// every definition becomes a component, refs are rewritten, `x-nullable`
// becomes `nullable` and swagger's string `discriminator` is dropped from
// the schema: instead specSet records, for each bundled base with a
// discriminator, its subtypes (the definitions of the same document that
// extend it with allOf, by x-ms-discriminator-value or their name), and the
// checker validates an object against the subtype its discriminator
// property names (the topology's sources and destinations, whose
// `properties` only the subtypes declare).
//
// On top of the schema, objects are checked strictly: a property the schema
// does not declare is a violation unless it is a documented emulator
// extension (extensions below), and every extension seen is logged.

// specRoot is the spec directory, relative to this package.
func specRoot() string {
	if d := os.Getenv("FABRIC_REST_API_SPECS"); d != "" {
		return d
	}
	return filepath.Join("..", "..", "shared", "fabric-rest-api-specs")
}

// extensions are the properties the emulator answers beyond the spec, by
// schema component and property, with where they are documented.
var extensions = map[string]string{
	"eventstream.definitions.json.Eventstream.properties":                         "README: create mints the DefaultStream, properties.streams[0].id (the notebook's eventstream.datasourceid)",
	"platform.definitions.platform.json.ItemJobInstance.triggerEvent":             "README: an Activator-triggered job instance carries the event that fired it",
	"lakehouse.definitions.json.LakehouseProperties.x-fabrictest-localTablesPath": "README: OneLake: the local directory behind oneLakeTablesPath",
	"lakehouse.definitions.json.LakehouseProperties.x-fabrictest-localFilesPath":  "README: OneLake: the local directory behind oneLakeFilesPath",
	// Microsoft's microsoft-fabric-api SDK (0.1.0b30) reads connections as a
	// polymorphic EndpointConnection (type CustomEndpoint | KafkaEndpoint),
	// newer than this spec: without type it cannot pick the subtype.
	"eventstream.definitions.source.json.SourceConnectionResponse.type":           "type: CustomEndpoint, which Microsoft's Python SDK needs to read the connection",
	"eventstream.definitions.destination.json.DestinationConnectionResponse.type": "type: CustomEndpoint, which Microsoft's Python SDK needs to read the connection",
}

// The native binding route GET …/destinations/{destinationId} is also
// Fabric's Topology_GetEventstreamDestination: a binding's answer carries
// the native view (README: the binding's workspaceId, itemId, table,
// database, and its delivery counters, delivery.rejectedRows) beside
// Fabric's DestinationResponse.
func init() {
	for _, typ := range []string{"Lakehouse", "Eventhouse", "Activator"} {
		for _, k := range []string{"workspaceId", "itemId", "table", "database", "delivery"} {
			extensions["eventstream.definitions.destination.json."+typ+"DestinationResponse."+k] =
				"README: GET …/destinations/{destinationId} of a binding adds the native view (bind fields, delivery counters) beside the DestinationResponse"
		}
	}
}

// A Lakehouse or Eventhouse binding's GET also shows the emulator's own
// delivery settings (README: Error policy), which Fabric's
// DestinationResponse does not have.
func init() {
	for _, typ := range []string{"Lakehouse", "Eventhouse"} {
		for _, k := range []string{"errorPolicy", "deadLetterTopic", "schemaMode"} {
			extensions["eventstream.definitions.destination.json."+typ+"DestinationResponse."+k] =
				"README: Error policy: GET …/destinations/{destinationId} of a binding shows its errorPolicy, deadLetterTopic and schemaMode (emulator extensions)"
		}
	}
}

// deviations are spec rules the emulator knowingly does not follow, because
// the spec's schema and its own examples (and the reference) disagree.
var deviations = []struct {
	schema, field, property, why string
}{
	{"platform.definitions.platform.json.ItemJobInstance", "nullable", "failureReason",
		"failureReason is null unless the instance failed, as in the spec's examples (GetItemJobInstance, ListItemJobInstances) and the reference; the schema's ErrorResponse is not x-nullable"},
}

var uuidPattern = regexp.MustCompile(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`)

var validateOpts = []openapi3.SchemaValidationOption{
	openapi3.MultiErrors(),
	openapi3.DisableSchemaErrorDetails(),
	openapi3.WithStringFormatValidator("uuid", openapi3.NewCallbackValidator(func(s string) error {
		if !uuidPattern.MatchString(s) {
			return errors.New("not a GUID")
		}
		return nil
	})),
}

// specOp is one operation of the spec.
type specOp struct {
	id, method, path string
	responses        map[string]string   // status or "default" → component ("" for no schema, "*" for any)
	headers          map[string][]string // status → response headers the spec declares
	request          string              // body parameter's component, "" when none
}

// polymorph is a swagger base with a discriminator.
type polymorph struct {
	property string
	subtypes map[string]string // discriminator value → component
}

// specSet holds the documents and the bundled schemas.
type specSet struct {
	root    string
	files   map[string]map[string]any // by slash path under root
	ops     map[string]*specOp
	schemas map[string]any        // component name → OpenAPI 3 schema JSON
	origin  map[string][2]string  // component name → document, definition
	poly    map[string]*polymorph // base component → its subtypes
	doc     *openapi3.T
}

func loadSpecs(t *testing.T) *specSet {
	t.Helper()
	root := specRoot()
	if _, err := os.Stat(filepath.Join(root, "platform", "swagger.json")); err != nil {
		abs, _ := filepath.Abs(root)
		t.Fatalf("the Fabric OpenAPI documents are missing: want %s (microsoft/fabric-rest-api-specs: platform, eventstream, lakehouse, eventhouse, kqlDatabase, reflex, common), or set FABRIC_REST_API_SPECS: %v", abs, err)
	}
	s := &specSet{root: root, files: map[string]map[string]any{}, ops: map[string]*specOp{}, schemas: map[string]any{},
		origin: map[string][2]string{}, poly: map[string]*polymorph{}}
	for _, f := range []string{"platform", "eventstream", "lakehouse", "eventhouse", "kqlDatabase", "reflex", "dataPipeline", "notebook", "sparkjobdefinition", "warehouse"} {
		file := f + "/swagger.json"
		doc := s.file(t, file)
		for p, item := range doc["paths"].(map[string]any) {
			for method, raw := range item.(map[string]any) {
				op, ok := raw.(map[string]any)
				if !ok || method == "parameters" {
					continue
				}
				so := &specOp{id: op["operationId"].(string), method: strings.ToUpper(method), path: p, responses: map[string]string{}, headers: map[string][]string{}}
				for code, r := range op["responses"].(map[string]any) {
					so.responses[code] = s.schemaOf(t, file, r.(map[string]any)["schema"])
					hs, _ := r.(map[string]any)["headers"].(map[string]any)
					for h := range hs {
						so.headers[code] = append(so.headers[code], h)
					}
				}
				for _, raw := range op["parameters"].([]any) {
					prm := raw.(map[string]any)
					if prm["in"] == "body" {
						so.request = s.schemaOf(t, file, prm["schema"])
					}
				}
				s.ops[so.id] = so
			}
		}
	}
	s.polymorphs(t)
	bundle, err := json.Marshal(map[string]any{
		"openapi": "3.0.3", "info": map[string]any{"title": "fabric", "version": "v1"}, "paths": map[string]any{},
		"components": map[string]any{"schemas": s.schemas},
	})
	if err != nil {
		t.Fatal(err)
	}
	if s.doc, err = openapi3.NewLoader().LoadFromData(bundle); err != nil {
		t.Fatalf("load the bundled spec: %v", err)
	}
	return s
}

// file reads a document by its slash path under the root, matching path
// elements case-insensitively when the exact spelling does not exist (the
// documents refer to common/ as Common/ in places).
func (s *specSet) file(t *testing.T, name string) map[string]any {
	t.Helper()
	name = path.Clean(name)
	if d, ok := s.files[name]; ok {
		return d
	}
	dir := s.root
	for _, el := range strings.Split(name, "/") {
		next := filepath.Join(dir, el)
		if _, err := os.Stat(next); err != nil {
			entries, _ := os.ReadDir(dir)
			for _, e := range entries {
				if strings.EqualFold(e.Name(), el) {
					next = filepath.Join(dir, e.Name())
				}
			}
		}
		dir = next
	}
	raw, err := os.ReadFile(dir)
	if err != nil {
		t.Fatalf("spec document %s: %v", name, err)
	}
	var d map[string]any
	if err := json.Unmarshal(raw, &d); err != nil {
		t.Fatalf("spec document %s: %v", name, err)
	}
	s.files[name] = d
	return d
}

// schemaOf turns a response or body schema into a component name: "" for
// none, "*" for swagger's type file (any body).
func (s *specSet) schemaOf(t *testing.T, file string, schema any) string {
	m, ok := schema.(map[string]any)
	switch {
	case !ok:
		return ""
	case m["type"] == "file":
		return "*"
	case m["$ref"] != nil:
		return s.ref(t, file, m["$ref"].(string))
	}
	name := fmt.Sprintf("inline.%d", len(s.schemas))
	s.schemas[name] = s.convert(t, file, m)
	return name
}

var componentName = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

// ref bundles the definition a swagger $ref (relative to file) names and
// returns its component name.
func (s *specSet) ref(t *testing.T, file, ref string) string {
	target, pointer, _ := strings.Cut(ref, "#")
	if target == "" {
		target = file
	} else {
		target = path.Clean(path.Join(path.Dir(file), target))
	}
	defName, ok := strings.CutPrefix(pointer, "/definitions/")
	if !ok {
		t.Fatalf("%s: unsupported $ref %q", file, ref)
	}
	doc := s.file(t, target)
	canonical := strings.ToLower(path.Dir(target)) + "/" + path.Base(target) // Common/ and common/ are one file
	name := componentName.ReplaceAllString(strings.ReplaceAll(canonical, "/", ".")+"."+defName, "_")
	if _, done := s.schemas[name]; done {
		return name
	}
	def, ok := doc["definitions"].(map[string]any)[defName].(map[string]any)
	if !ok {
		t.Fatalf("%s: $ref %q: no definition %s in %s", file, ref, defName, target)
	}
	s.schemas[name] = nil // placeholder: recursion
	s.origin[name] = [2]string{target, defName}
	s.schemas[name] = s.convert(t, target, def)
	return name
}

// polymorphs bundles the subtypes of every bundled base with a
// discriminator, until no new base appears.
func (s *specSet) polymorphs(t *testing.T) {
	for {
		added := false
		for _, name := range keys(s.origin) {
			if s.poly[name] != nil {
				continue
			}
			o := s.origin[name]
			def := s.file(t, o[0])["definitions"].(map[string]any)
			prop, ok := def[o[1]].(map[string]any)["discriminator"].(string)
			if !ok {
				continue
			}
			p := &polymorph{property: prop, subtypes: map[string]string{}}
			s.poly[name] = p
			added = true
			for _, sub := range keys(def) {
				d := def[sub].(map[string]any)
				parts, _ := d["allOf"].([]any)
				for _, part := range parts {
					r, _ := part.(map[string]any)["$ref"].(string)
					if r == "" || !strings.HasSuffix(r, "/definitions/"+o[1]) || s.ref(t, o[0], r) != name {
						continue
					}
					if !s.resolvable(t, o[0], d, map[string]bool{}) {
						continue // refers to a document not in the set
					}
					value, ok := d["x-ms-discriminator-value"].(string)
					if !ok {
						value = sub
					}
					p.subtypes[value] = s.ref(t, o[0], "#/definitions/"+sub)
				}
			}
		}
		if !added {
			return
		}
	}
}

// resolvable reports whether every document v (in file) refers to,
// transitively, is in the set.
func (s *specSet) resolvable(t *testing.T, file string, v any, seen map[string]bool) bool {
	switch v := v.(type) {
	case map[string]any:
		if r, ok := v["$ref"].(string); ok {
			target, pointer, _ := strings.Cut(r, "#")
			if target == "" {
				target = file
			} else {
				target = path.Clean(path.Join(path.Dir(file), target))
			}
			key := strings.ToLower(target) + "#" + pointer
			if seen[key] {
				return true
			}
			seen[key] = true
			if !s.exists(target) {
				return false
			}
			def, _ := s.file(t, target)["definitions"].(map[string]any)[strings.TrimPrefix(pointer, "/definitions/")]
			return s.resolvable(t, target, def, seen)
		}
		for _, x := range v {
			if !s.resolvable(t, file, x, seen) {
				return false
			}
		}
	case []any:
		for _, x := range v {
			if !s.resolvable(t, file, x, seen) {
				return false
			}
		}
	}
	return true
}

// exists reports whether a document is there (path elements matched as file does).
func (s *specSet) exists(name string) bool {
	if _, ok := s.files[path.Clean(name)]; ok {
		return true
	}
	dir := s.root
	for _, el := range strings.Split(path.Clean(name), "/") {
		next := filepath.Join(dir, el)
		if _, err := os.Stat(next); err != nil {
			found := false
			entries, _ := os.ReadDir(dir)
			for _, e := range entries {
				if strings.EqualFold(e.Name(), el) {
					next, found = filepath.Join(dir, e.Name()), true
				}
			}
			if !found {
				return false
			}
		}
		dir = next
	}
	return true
}

// convert rewrites a swagger 2.0 schema into OpenAPI 3.0 form.
func (s *specSet) convert(t *testing.T, file string, v any) any {
	switch v := v.(type) {
	case map[string]any:
		if r, ok := v["$ref"].(string); ok {
			return map[string]any{"$ref": "#/components/schemas/" + s.ref(t, file, r)}
		}
		out := map[string]any{}
		for k, x := range v {
			switch {
			case k == "discriminator" || strings.HasPrefix(k, "x-ms-") || k == "example" || k == "externalDocs":
			case k == "x-nullable":
				out["nullable"] = x
			case k == "type" && x == "file":
			case k == "properties":
				props := map[string]any{}
				for name, p := range x.(map[string]any) {
					props[name] = s.convert(t, file, p)
				}
				out[k] = props
			default:
				out[k] = s.convert(t, file, x)
			}
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, x := range v {
			out[i] = s.convert(t, file, x)
		}
		return out
	}
	return v
}

// checker collects violations and extensions over a run.
type checker struct {
	t          *testing.T
	spec       *specSet
	mu         sync.Mutex
	violations []string
	deviated   map[int]int
	extensions map[string]int
	covered    map[string]bool
	wire       bool // also hold each answer to its wire type (wiretypes_test.go)
}

func newChecker(t *testing.T, spec *specSet) *checker {
	return &checker{t: t, spec: spec, deviated: map[int]int{}, extensions: map[string]int{}, covered: map[string]bool{}}
}

func (c *checker) fail(format string, args ...any) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.violations = append(c.violations, fmt.Sprintf(format, args...))
}

// request validates a request body the test is about to send.
func (c *checker) request(opID string, body any) any {
	c.t.Helper()
	op := c.spec.ops[opID]
	if op == nil {
		c.t.Fatalf("no operation %s in the spec", opID)
	}
	if op.request != "" && body != nil {
		var v any
		raw, _ := json.Marshal(body)
		_ = json.Unmarshal(raw, &v)
		c.validate(opID+" request", op.request, v, true)
	}
	return body
}

// response validates an answer of operation opID.
func (c *checker) response(opID string, r resp) resp {
	c.t.Helper()
	op := c.spec.ops[opID]
	if op == nil {
		c.t.Fatalf("no operation %s in the spec", opID)
	}
	c.mu.Lock()
	c.covered[opID] = true
	c.mu.Unlock()
	code := strconv.Itoa(r.Status)
	schema, declared := op.responses[code]
	if !declared {
		if r.Status < 400 {
			c.fail("%s %s: status %d is not among the spec's responses %v: %s", op.method, op.path, r.Status, keys(op.responses), r.Raw)
			return r
		}
		schema = op.responses["default"]
	}
	// A 202 carries every header the spec declares for it (Location,
	// x-ms-operation-id, Retry-After: the long-running operation contract).
	// Swagger 2 cannot mark a header required, and elsewhere they depend on
	// the state (an operation's Location exists while it runs or once it
	// has a result), so other answers are not held to them.
	for _, h := range op.headers[code] {
		if r.Status != http.StatusAccepted {
			break
		}
		if r.Header.Get(h) == "" {
			c.fail("%s %s: %d lacks the %s header the spec declares", op.method, op.path, r.Status, h)
		}
	}
	switch {
	case schema == "*":
	case schema == "":
		if len(strings.TrimSpace(string(r.Raw))) > 0 {
			c.fail("%s %s: %d has a body where the spec declares none: %s", op.method, op.path, r.Status, r.Raw)
		}
	default:
		var v any
		if err := json.Unmarshal(r.Raw, &v); err != nil {
			c.fail("%s %s: %d: body is not JSON: %v: %q", op.method, op.path, r.Status, err, r.Raw)
			return r
		}
		c.validate(fmt.Sprintf("%s %s %d", op.method, op.path, r.Status), schema, v, false)
	}
	if c.wire {
		wireRoundTrip(c.t, opID, r)
	}
	return r
}

// validate checks v against component name, then strictly for undeclared properties.
func (c *checker) validate(where, name string, v any, request bool) {
	ref := c.spec.doc.Components.Schemas[name]
	if ref == nil || ref.Value == nil {
		c.t.Fatalf("%s: no component %s", where, name)
	}
	c.visit(where, ref, v, request)
	c.strict(where, name, ref, v, "")
}

// visit validates v against ref's schema.
func (c *checker) visit(where string, ref *openapi3.SchemaRef, v any, request bool) {
	opts := append(slices.Clone(validateOpts), openapi3.VisitAsResponse())
	if request {
		opts = append(slices.Clone(validateOpts), openapi3.VisitAsRequest())
	}
	if err := ref.Value.VisitJSON(v, opts...); err != nil {
		var me openapi3.MultiError
		if !errors.As(err, &me) {
			me = openapi3.MultiError{err}
		}
		for _, e := range flatten(me) {
			if !c.deviation(e) {
				c.fail("%s: %v", where, e)
			}
		}
	}
}

// subtype returns the component of the subtype v's discriminator names
// when ref is a polymorphic base ("" otherwise).
func (c *checker) subtype(ref *openapi3.SchemaRef, name string, v map[string]any) string {
	p := c.spec.poly[refName(ref, name)]
	if p == nil {
		return ""
	}
	value, _ := v[p.property].(string)
	return p.subtypes[value]
}

func flatten(me openapi3.MultiError) []error {
	var out []error
	for _, e := range me {
		var inner openapi3.MultiError
		if errors.As(e, &inner) {
			out = append(out, flatten(inner)...)
			continue
		}
		out = append(out, e)
	}
	return out
}

// deviation reports whether e is a documented deviation.
func (c *checker) deviation(e error) bool {
	var se *openapi3.SchemaError
	if !errors.As(e, &se) {
		return false
	}
	ptr := se.JSONPointer()
	for i, d := range deviations {
		parent := c.spec.doc.Components.Schemas[d.schema]
		if parent == nil || parent.Value == nil || se.SchemaField != d.field || len(ptr) == 0 || ptr[len(ptr)-1] != d.property {
			continue
		}
		// The error names the innermost schema (an allOf part of the
		// property's), so the property's name and the rule identify it.
		if p := parent.Value.Properties[d.property]; p != nil {
			c.mu.Lock()
			c.deviated[i]++
			c.mu.Unlock()
			return true
		}
	}
	return false
}

// strict reports object properties that no schema on the way declares.
func (c *checker) strict(where, name string, ref *openapi3.SchemaRef, v any, at string) {
	switch v := v.(type) {
	case map[string]any:
		if sub := c.subtype(ref, name, v); sub != "" {
			name = sub
			ref = &openapi3.SchemaRef{Ref: "#/components/schemas/" + sub, Value: c.spec.doc.Components.Schemas[sub].Value}
			c.visit(where+" "+at, ref, v, false)
		}
		props, open := declared(ref)
		if open {
			return
		}
		for k, x := range v {
			p := props[k]
			if p == nil {
				ext := refName(ref, name) + "." + k
				if _, ok := extensions[ext]; ok {
					c.mu.Lock()
					c.extensions[ext]++
					c.mu.Unlock()
					continue
				}
				c.fail("%s: %s/%s: property not in the spec's %s", where, at, k, refName(ref, name))
				continue
			}
			c.strict(where, name, p, x, at+"/"+k)
		}
	case []any:
		if ref.Value.Items != nil {
			for i, x := range v {
				c.strict(where, name, ref.Value.Items, x, at+"/"+strconv.Itoa(i))
			}
		}
	}
}

// declared returns the properties of a schema and its allOf parts, and
// whether it admits any property.
func declared(ref *openapi3.SchemaRef) (map[string]*openapi3.SchemaRef, bool) {
	s := ref.Value
	if len(s.OneOf) > 0 || len(s.AnyOf) > 0 || s.AdditionalProperties.Schema != nil ||
		(s.AdditionalProperties.Has != nil && *s.AdditionalProperties.Has) ||
		(len(s.Properties) == 0 && len(s.AllOf) == 0) {
		return nil, true
	}
	out := map[string]*openapi3.SchemaRef{}
	for _, part := range s.AllOf {
		props, open := declared(part)
		if open && len(part.Value.Properties) == 0 && len(part.Value.AllOf) == 0 {
			continue
		} else if open {
			return nil, true
		}
		for k, p := range props {
			out[k] = p
		}
	}
	for k, p := range s.Properties {
		out[k] = p
	}
	return out, false
}

func refName(ref *openapi3.SchemaRef, fallback string) string {
	if n := strings.TrimPrefix(ref.Ref, "#/components/schemas/"); n != "" {
		return n
	}
	return fallback
}

func keys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// served are the spec operations the emulator implements; each must be
// driven by the test.
var served = []string{
	"Workspaces_CreateWorkspace", "Workspaces_ListWorkspaces", "Workspaces_GetWorkspace", "Workspaces_UpdateWorkspace", "Workspaces_DeleteWorkspace",
	"Workspaces_AddWorkspaceRoleAssignment", "Workspaces_ListWorkspaceRoleAssignments", "Workspaces_GetWorkspaceRoleAssignment",
	"Workspaces_UpdateWorkspaceRoleAssignment", "Workspaces_DeleteWorkspaceRoleAssignment",
	"Items_CreateItem", "Items_ListItems", "Items_GetItem", "Items_UpdateItem", "Items_DeleteItem",
	"Items_CreateEventstream", "Items_ListEventstreams", "Items_GetEventstream", "Items_UpdateEventstream", "Items_DeleteEventstream",
	"Items_CreateLakehouse", "Items_ListLakehouses", "Items_GetLakehouse", "Items_UpdateLakehouse", "Items_DeleteLakehouse", "Tables_ListTables",
	"Items_CreateEventhouse", "Items_ListEventhouses", "Items_GetEventhouse", "Items_UpdateEventhouse", "Items_DeleteEventhouse",
	"Items_CreateKQLDatabase", "Items_ListKQLDatabases", "Items_GetKQLDatabase", "Items_UpdateKQLDatabase", "Items_DeleteKQLDatabase",
	"Items_CreateReflex", "Items_ListReflexes", "Items_GetReflex", "Items_UpdateReflex", "Items_DeleteReflex",
	"JobScheduler_RunOnDemandItemJob", "JobScheduler_GetItemJobInstance", "JobScheduler_ListItemJobInstances", "JobScheduler_CancelItemJobInstance",
	"LongRunningOperations_GetOperationState", "LongRunningOperations_GetOperationResult",
	"Items_GetEventstreamDefinition", "Items_UpdateEventstreamDefinition", "Items_GetItemDefinition", "Items_UpdateItemDefinition",
	"Topology_GetEventstreamTopology", "Topology_GetEventstreamSource", "Topology_GetEventstreamDestination",
	"Topology_PauseEventstream", "Topology_ResumeEventstream", "Topology_PauseEventstreamSource", "Topology_ResumeEventstreamSource",
	"Topology_PauseEventstreamDestination", "Topology_ResumeEventstreamDestination",
	"Topology_GetEventstreamSourceConnection", "Topology_GetEventstreamDestinationConnection",
	"Folders_ListFolders",
	"Items_CreateDataPipeline", "Items_ListDataPipelines", "Items_GetDataPipeline", "Items_UpdateDataPipeline", "Items_DeleteDataPipeline",
	"Items_GetDataPipelineDefinition", "Items_UpdateDataPipelineDefinition",
	"Items_CreateNotebook", "Items_ListNotebooks", "Items_GetNotebook", "Items_UpdateNotebook", "Items_DeleteNotebook",
	"Items_GetNotebookDefinition", "Items_UpdateNotebookDefinition",
	"Items_CreateSparkJobDefinition", "Items_ListSparkJobDefinitions", "Items_GetSparkJobDefinition", "Items_UpdateSparkJobDefinition", "Items_DeleteSparkJobDefinition",
	"Items_GetSparkJobDefinitionDefinition", "Items_UpdateSparkJobDefinitionDefinition",
	"Items_CreateWarehouse", "Items_ListWarehouses", "Items_GetWarehouse", "Items_UpdateWarehouse", "Items_DeleteWarehouse",
}

func TestConformance(t *testing.T) {
	spec := loadSpecs(t)
	ck := newChecker(t, spec)
	ck.wire = true
	e := startEnv(t, emulator.WithPageSize(2))
	release := make(chan struct{})
	e.srv.HandleJobs("", "Blocking", func(ctx context.Context, _ emulator.Job) error {
		select {
		case <-release:
		case <-ctx.Done():
		}
		return nil
	})
	defer close(release)
	do := func(opID, method, p string, body any) resp {
		t.Helper()
		return ck.response(opID, e.call(method, p, ck.request(opID, body)))
	}

	// Workspaces.
	ws := e.must(201, do("Workspaces_CreateWorkspace", "POST", "/v1/workspaces", map[string]any{"displayName": "conf", "description": "d"})).str("id")
	for i := range 3 {
		do("Workspaces_CreateWorkspace", "POST", "/v1/workspaces", map[string]any{"displayName": fmt.Sprint("more", i)})
	}
	page := e.must(200, do("Workspaces_ListWorkspaces", "GET", "/v1/workspaces", nil))
	if tok := page.str("continuationToken"); tok != "" {
		do("Workspaces_ListWorkspaces", "GET", "/v1/workspaces?continuationToken="+tok, nil)
	}
	do("Workspaces_ListWorkspaces", "GET", "/v1/workspaces?roles=Nope", nil) // an error envelope
	e.must(200, do("Workspaces_GetWorkspace", "GET", "/v1/workspaces/"+ws, nil))
	e.must(200, do("Workspaces_UpdateWorkspace", "PATCH", "/v1/workspaces/"+ws, map[string]any{"description": "d2"}))
	do("Workspaces_GetWorkspace", "GET", "/v1/workspaces/3f2504e0-4f89-11d3-9a0c-0305e82c3301", nil)
	e.must(200, do("Folders_ListFolders", "GET", "/v1/workspaces/"+ws+"/folders", nil))
	do("Folders_ListFolders", "GET", "/v1/workspaces/3f2504e0-4f89-11d3-9a0c-0305e82c3301/folders", nil)

	// Role assignments.
	wsBase := "/v1/workspaces/" + ws
	other := "6a8f7c51-2b1e-4d0a-9c3f-0e5d7b9a1c24"
	e.must(201, do("Workspaces_AddWorkspaceRoleAssignment", "POST", wsBase+"/roleAssignments",
		map[string]any{"principal": map[string]any{"id": other, "type": "User"}, "role": "Viewer"}))
	do("Workspaces_AddWorkspaceRoleAssignment", "POST", wsBase+"/roleAssignments",
		map[string]any{"principal": map[string]any{"id": other, "type": "User"}, "role": "Viewer"}) // conflict
	e.must(200, do("Workspaces_ListWorkspaceRoleAssignments", "GET", wsBase+"/roleAssignments", nil))
	e.must(200, do("Workspaces_GetWorkspaceRoleAssignment", "GET", wsBase+"/roleAssignments/"+other, nil))
	e.must(200, do("Workspaces_UpdateWorkspaceRoleAssignment", "PATCH", wsBase+"/roleAssignments/"+other, map[string]any{"role": "Member"}))
	e.must(200, do("Workspaces_DeleteWorkspaceRoleAssignment", "DELETE", wsBase+"/roleAssignments/"+other, nil))

	// Generic items and each typed collection: create, list (two pages), get, update, delete.
	type collection struct {
		create, list, get, update, del string
		route, param                   string
		body                           func(i int) map[string]any
	}
	var eventhouseID string
	cols := []collection{
		{"Items_CreateItem", "Items_ListItems", "Items_GetItem", "Items_UpdateItem", "Items_DeleteItem", "items", "itemId",
			func(i int) map[string]any {
				return map[string]any{"displayName": fmt.Sprint("nb", i), "type": "Notebook"}
			}},
		{"Items_CreateEventstream", "Items_ListEventstreams", "Items_GetEventstream", "Items_UpdateEventstream", "Items_DeleteEventstream", "eventstreams", "eventstreamId",
			func(i int) map[string]any {
				return map[string]any{"displayName": fmt.Sprint("es", i), "description": "an eventstream"}
			}},
		{"Items_CreateLakehouse", "Items_ListLakehouses", "Items_GetLakehouse", "Items_UpdateLakehouse", "Items_DeleteLakehouse", "lakehouses", "lakehouseId",
			func(i int) map[string]any { return map[string]any{"displayName": fmt.Sprint("lh", i)} }},
		{"Items_CreateEventhouse", "Items_ListEventhouses", "Items_GetEventhouse", "Items_UpdateEventhouse", "Items_DeleteEventhouse", "eventhouses", "eventhouseId",
			func(i int) map[string]any { return map[string]any{"displayName": fmt.Sprint("eh", i)} }},
		{"Items_CreateKQLDatabase", "Items_ListKQLDatabases", "Items_GetKQLDatabase", "Items_UpdateKQLDatabase", "Items_DeleteKQLDatabase", "kqlDatabases", "kqlDatabaseId",
			func(i int) map[string]any {
				return map[string]any{"displayName": fmt.Sprint("db", i), "creationPayload": map[string]any{"databaseType": "ReadWrite", "parentEventhouseItemId": eventhouseID}}
			}},
		{"Items_CreateReflex", "Items_ListReflexes", "Items_GetReflex", "Items_UpdateReflex", "Items_DeleteReflex", "reflexes", "reflexId",
			func(i int) map[string]any { return map[string]any{"displayName": fmt.Sprint("rx", i)} }},
		{"Items_CreateDataPipeline", "Items_ListDataPipelines", "Items_GetDataPipeline", "Items_UpdateDataPipeline", "Items_DeleteDataPipeline", "dataPipelines", "dataPipelineId",
			func(i int) map[string]any {
				return map[string]any{"displayName": fmt.Sprint("pl", i), "definition": partsOf(map[string]string{"pipeline-content.json": `{"properties":{"activities":[]}}`})}
			}},
		{"Items_CreateNotebook", "Items_ListNotebooks", "Items_GetNotebook", "Items_UpdateNotebook", "Items_DeleteNotebook", "notebooks", "notebookId",
			func(i int) map[string]any { return map[string]any{"displayName": fmt.Sprint("typed-nb", i)} }},
		{"Items_CreateSparkJobDefinition", "Items_ListSparkJobDefinitions", "Items_GetSparkJobDefinition", "Items_UpdateSparkJobDefinition", "Items_DeleteSparkJobDefinition", "sparkJobDefinitions", "sparkJobDefinitionId",
			func(i int) map[string]any { return map[string]any{"displayName": fmt.Sprint("sjd", i)} }},
		{"Items_CreateWarehouse", "Items_ListWarehouses", "Items_GetWarehouse", "Items_UpdateWarehouse", "Items_DeleteWarehouse", "warehouses", "warehouseId",
			func(i int) map[string]any { return map[string]any{"displayName": fmt.Sprint("wh", i)} }},
	}
	var lakehouseID, notebookID, pipelineID, typedNotebookID, sjdID string
	for _, col := range cols {
		base := wsBase + "/" + col.route
		var ids []string
		for i := range 3 {
			ids = append(ids, e.must(201, do(col.create, "POST", base, col.body(i))).str("id"))
		}
		switch col.route {
		case "eventhouses":
			eventhouseID = ids[0]
		case "lakehouses":
			lakehouseID = ids[0]
		case "items":
			notebookID = ids[0]
		case "dataPipelines":
			pipelineID = ids[0]
		case "notebooks":
			typedNotebookID = ids[0]
		case "sparkJobDefinitions":
			sjdID = ids[0]
		}
		do(col.create, "POST", base, col.body(0)) // name in use
		page := e.must(200, do(col.list, "GET", base, nil))
		if tok := page.str("continuationToken"); tok != "" {
			do(col.list, "GET", base+"?continuationToken="+tok, nil)
		}
		e.must(200, do(col.get, "GET", base+"/"+ids[0], nil))
		do(col.get, "GET", base+"/0b3c9b0e-5d8f-4c1a-9e77-2f6a1d3b4c5e", nil) // not found
		e.must(200, do(col.update, "PATCH", base+"/"+ids[1], map[string]any{"description": "changed"}))
		e.must(200, do(col.del, "DELETE", base+"/"+ids[2], nil))
	}

	// The generic routes over items of every type.
	all := e.must(200, do("Items_ListItems", "GET", wsBase+"/items?type=Lakehouse", nil))
	for _, v := range all.Body["value"].([]any) {
		do("Items_GetItem", "GET", wsBase+"/items/"+v.(map[string]any)["id"].(string), nil)
	}
	for _, typ := range []string{"Eventstream", "Eventhouse", "KQLDatabase", "Reflex"} {
		do("Items_ListItems", "GET", wsBase+"/items?type="+typ, nil)
	}

	// Lakehouse tables: one Delta table on disk.
	lh := e.must(200, e.call("GET", wsBase+"/lakehouses/"+lakehouseID, nil))
	tables := lh.Body["properties"].(map[string]any)["x-fabrictest-localTablesPath"].(string)
	if err := os.MkdirAll(filepath.Join(tables, "orders", "_delta_log"), 0o755); err != nil {
		t.Fatal(err)
	}
	e.must(200, do("Tables_ListTables", "GET", wsBase+"/lakehouses/"+lakehouseID+"/tables", nil))

	// Eventstreams as code: create with a definition, get and update it
	// (typed and generic), then the topology and pause / resume.
	// raw sends a body the spec's request schema would refuse (errors).
	raw := func(opID, method, p string, body any) resp {
		t.Helper()
		return ck.response(opID, e.call(method, p, body))
	}
	topo := map[string]any{
		"sources":   []any{map[string]any{"name": "app", "type": "CustomEndpoint", "properties": map[string]any{}}},
		"streams":   []any{map[string]any{"name": "conf-stream", "type": "DefaultStream", "properties": map[string]any{}, "inputNodes": []any{map[string]any{"name": "app"}}}},
		"operators": []any{},
		"destinations": []any{
			map[string]any{"name": "lake", "type": "Lakehouse", "properties": map[string]any{"workspaceId": ws, "itemId": lakehouseID, "deltaTable": "conf"}, "inputNodes": []any{map[string]any{"name": "conf-stream"}}},
			map[string]any{"name": "out", "type": "CustomEndpoint", "properties": map[string]any{}, "inputNodes": []any{map[string]any{"name": "conf-stream"}}},
		},
		"compatibilityLevel": "1.0",
	}
	platform := map[string]any{"metadata": map[string]any{"type": "Eventstream", "displayName": "conf-es2"}, "config": map[string]any{"version": "2.0", "logicalId": "00000000-0000-0000-0000-000000000000"}}
	esID := e.must(201, do("Items_CreateEventstream", "POST", wsBase+"/eventstreams", map[string]any{"displayName": "conf-es", "definition": definitionOf(topo, nil)})).str("id")
	e.must(201, do("Items_CreateItem", "POST", wsBase+"/items", map[string]any{"displayName": "conf-es-item", "type": "Eventstream", "definition": definitionOf(topo, nil)}))
	esBase := wsBase + "/eventstreams/" + esID
	missingES := wsBase + "/eventstreams/0b3c9b0e-5d8f-4c1a-9e77-2f6a1d3b4c5e"
	e.must(200, do("Items_GetEventstreamDefinition", "POST", esBase+"/getDefinition", nil))
	do("Items_GetEventstreamDefinition", "POST", missingES+"/getDefinition", nil) // not found
	cur := parts(t, e.must(200, do("Items_GetItemDefinition", "POST", wsBase+"/items/"+esID+"/getDefinition", nil)))["eventstream.json"]
	do("Items_GetItemDefinition", "POST", wsBase+"/items/"+lakehouseID+"/getDefinition", nil) // a Lakehouse's stored definition (none: .platform only)
	e.must(200, do("Items_UpdateEventstreamDefinition", "POST", esBase+"/updateDefinition?updateMetadata=true", map[string]any{"definition": definitionOf(cur, platform)}))
	do("Items_UpdateEventstreamDefinition", "POST", esBase+"/updateDefinition", map[string]any{"definition": map[string]any{"parts": []any{
		map[string]any{"path": "eventstream.json", "payload": "!!", "payloadType": "InlineBase64"}}}}) // corrupted payload
	e.must(200, do("Items_UpdateItemDefinition", "POST", wsBase+"/items/"+esID+"/updateDefinition", map[string]any{"definition": definitionOf(cur, nil)}))
	do("Items_UpdateItemDefinition", "POST", wsBase+"/items/"+lakehouseID+"/updateDefinition", map[string]any{"definition": definitionOf(cur, nil)}) // stored as sent

	// Stored definitions of the other item types, typed routes.
	plBase, nbBase, sjdBase := wsBase+"/dataPipelines/"+pipelineID, wsBase+"/notebooks/"+typedNotebookID, wsBase+"/sparkJobDefinitions/"+sjdID
	e.must(200, do("Items_GetDataPipelineDefinition", "POST", plBase+"/getDefinition", nil))
	do("Items_GetDataPipelineDefinition", "POST", wsBase+"/dataPipelines/0b3c9b0e-5d8f-4c1a-9e77-2f6a1d3b4c5e/getDefinition", nil) // not found
	e.must(200, do("Items_UpdateDataPipelineDefinition", "POST", plBase+"/updateDefinition?updateMetadata=true",
		map[string]any{"definition": partsOf(map[string]string{"pipeline-content.json": `{"properties":{"activities":[{"name":"w","type":"Wait"}]}}`,
			".platform": `{"metadata":{"type":"DataPipeline","displayName":"pl-renamed"}}`})}))
	do("Items_UpdateDataPipelineDefinition", "POST", plBase+"/updateDefinition", map[string]any{"definition": partsOf(map[string]string{"other.json": `{}`})}) // part missing
	e.must(200, do("Items_UpdateNotebookDefinition", "POST", nbBase+"/updateDefinition",
		map[string]any{"definition": partsOf(map[string]string{"notebook-content.py": "# Fabric notebook source\nprint(1)\n"})}))
	e.must(200, do("Items_GetNotebookDefinition", "POST", nbBase+"/getDefinition", nil))
	do("Items_GetNotebookDefinition", "POST", nbBase+"/getDefinition?format=ipynb", nil) // not converted
	e.must(200, do("Items_UpdateSparkJobDefinitionDefinition", "POST", sjdBase+"/updateDefinition",
		map[string]any{"definition": partsOf(map[string]string{"SparkJobDefinitionV1.json": `{"executableFile":null}`})}))
	e.must(200, do("Items_GetSparkJobDefinitionDefinition", "POST", sjdBase+"/getDefinition", nil))

	tp := e.must(200, do("Topology_GetEventstreamTopology", "GET", esBase+"/topology", nil)).Body
	do("Topology_GetEventstreamTopology", "GET", missingES+"/topology", nil)
	srcID := nodesByName(tp, "sources")["app"]["id"].(string)
	lakeID := nodesByName(tp, "destinations")["lake"]["id"].(string)
	outID := nodesByName(tp, "destinations")["out"]["id"].(string)
	e.must(200, do("Topology_GetEventstreamSource", "GET", esBase+"/sources/"+srcID, nil))
	do("Topology_GetEventstreamSource", "GET", esBase+"/sources/"+ws, nil) // not a source
	for _, d := range []string{lakeID, outID} {
		e.must(200, do("Topology_GetEventstreamDestination", "GET", esBase+"/destinations/"+d, nil))
	}
	do("Topology_GetEventstreamDestination", "GET", esBase+"/destinations/"+ws, nil) // not a destination
	e.must(200, do("Topology_GetEventstreamSourceConnection", "GET", esBase+"/sources/"+srcID+"/connection", nil))
	do("Topology_GetEventstreamSourceConnection", "GET", esBase+"/sources/"+ws+"/connection", nil) // not a source
	e.must(200, do("Topology_GetEventstreamDestinationConnection", "GET", esBase+"/destinations/"+outID+"/connection", nil))
	do("Topology_GetEventstreamDestinationConnection", "GET", esBase+"/destinations/"+lakeID+"/connection", nil) // not a CustomEndpoint
	now := map[string]any{"startType": "Now"}
	e.must(200, do("Topology_PauseEventstreamSource", "POST", esBase+"/sources/"+srcID+"/pause", nil))
	do("Topology_PauseEventstreamSource", "POST", esBase+"/sources/"+ws+"/pause", nil)
	e.must(200, do("Topology_ResumeEventstreamSource", "POST", esBase+"/sources/"+srcID+"/resume", now))
	raw("Topology_ResumeEventstreamSource", "POST", esBase+"/sources/"+srcID+"/resume", `{"startType":"Later"}`)
	for _, d := range []string{lakeID, outID} {
		e.must(200, do("Topology_PauseEventstreamDestination", "POST", esBase+"/destinations/"+d+"/pause", nil))
		e.must(200, do("Topology_GetEventstreamDestination", "GET", esBase+"/destinations/"+d, nil)) // Paused
		e.must(200, do("Topology_ResumeEventstreamDestination", "POST", esBase+"/destinations/"+d+"/resume", map[string]any{"startType": "WhenLastStopped"}))
	}
	do("Topology_PauseEventstreamDestination", "POST", esBase+"/destinations/"+ws+"/pause", nil)
	raw("Topology_ResumeEventstreamDestination", "POST", esBase+"/destinations/"+lakeID+"/resume", `{"startType":"CustomTime"}`)
	e.must(200, do("Topology_PauseEventstream", "POST", esBase+"/pause", nil))
	e.must(200, do("Topology_GetEventstreamTopology", "GET", esBase+"/topology", nil)) // Paused
	do("Topology_PauseEventstream", "POST", missingES+"/pause", nil)
	raw("Topology_ResumeEventstream", "POST", esBase+"/resume", nil) // body required
	e.must(200, do("Topology_ResumeEventstream", "POST", esBase+"/resume", now))

	// Job Scheduler: one that fails (no runner), one blocked then cancelled.
	items := wsBase + "/items/" + notebookID
	run := e.must(202, do("JobScheduler_RunOnDemandItemJob", "POST", items+"/jobs/RunNotebook/instances", nil))
	failed := run.Header.Get("Location")[strings.LastIndex(run.Header.Get("Location"), "/")+1:]
	blocked := e.must(202, do("JobScheduler_RunOnDemandItemJob", "POST", items+"/jobs/Blocking/instances",
		map[string]any{"executionData": map[string]any{"k": "v"}}))
	blockedID := blocked.Header.Get("Location")[strings.LastIndex(blocked.Header.Get("Location"), "/")+1:]
	deadline := time.Now().Add(10 * time.Second)
	for {
		r := e.must(200, do("JobScheduler_GetItemJobInstance", "GET", items+"/jobs/instances/"+failed, nil))
		if s := r.str("status"); s == "Failed" || s == "Completed" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("job did not finish")
		}
		time.Sleep(10 * time.Millisecond)
	}
	e.must(200, do("JobScheduler_GetItemJobInstance", "GET", items+"/jobs/instances/"+blockedID, nil))
	e.must(202, do("JobScheduler_CancelItemJobInstance", "POST", items+"/jobs/instances/"+blockedID+"/cancel", nil))
	do("JobScheduler_CancelItemJobInstance", "POST", items+"/jobs/instances/"+failed+"/cancel", nil) // already completed
	e.must(200, do("JobScheduler_ListItemJobInstances", "GET", items+"/jobs/instances", nil))
	do("JobScheduler_GetItemJobInstance", "GET", items+"/jobs/instances/4d3c2b1a-0000-4000-8000-000000000000", nil)

	// Long-running operations: every create route, asynchronously.
	a := startEnv(t, emulator.WithAsyncOperations())
	ado := func(opID, method, p string, body any) resp {
		t.Helper()
		return ck.response(opID, a.call(method, p, ck.request(opID, body)))
	}
	aws := a.workspace("async")
	var ehID string
	for _, col := range cols {
		body := col.body(0)
		if col.route == "kqlDatabases" {
			body["creationPayload"].(map[string]any)["parentEventhouseItemId"] = ehID
		}
		op := a.accepted(ado(col.create, "POST", "/v1/workspaces/"+aws+"/"+col.route, body))
		for {
			st := a.must(200, ado("LongRunningOperations_GetOperationState", "GET", op, nil))
			if st.str("status") == "Succeeded" {
				break
			}
			time.Sleep(5 * time.Millisecond)
		}
		res := a.must(200, ado("LongRunningOperations_GetOperationResult", "GET", op+"/result", nil))
		// The result is the create's answer: validate it as such.
		createOp := spec.ops[col.create]
		ck.validate(col.create+" result", createOp.responses["201"], res.Body, false)
		if col.route == "eventhouses" {
			ehID = res.str("id")
		}
		if col.route == "items" {
			fail := a.accepted(ado(col.create, "POST", "/v1/workspaces/"+aws+"/"+col.route, body))
			for a.must(200, ado("LongRunningOperations_GetOperationState", "GET", fail, nil)).str("status") != "Failed" {
				time.Sleep(5 * time.Millisecond)
			}
			ado("LongRunningOperations_GetOperationResult", "GET", fail+"/result", nil) // OperationHasNoResult
		}
	}
	ado("LongRunningOperations_GetOperationState", "GET", "/v1/operations/5e0f3c6a-1111-4222-8333-944455556666", nil)

	e.must(200, do("Workspaces_DeleteWorkspace", "DELETE", wsBase, nil))

	checkWireCoverage(t)
	for _, id := range served {
		if !ck.covered[id] {
			t.Errorf("operation %s is served but was not driven", id)
		}
	}
	for _, k := range keys(ck.extensions) {
		t.Logf("extension %s (%d answers): %s", k, ck.extensions[k], extensions[k])
	}
	for i, d := range deviations {
		t.Logf("deviation %s.%s (%s, %d answers): %s", d.schema, d.property, d.field, ck.deviated[i], d.why)
	}
	if len(ck.violations) > 0 {
		sort.Strings(ck.violations)
		ck.violations = slices.Compact(ck.violations)
		t.Errorf("%d spec violations:\n%s", len(ck.violations), strings.Join(ck.violations, "\n"))
	}
}

// TestConformanceChecker makes sure the checker catches what it should.
func TestConformanceChecker(t *testing.T) {
	spec := loadSpecs(t)
	ck := newChecker(t, spec)
	ck.response("Items_GetItem", resp{Status: 200, Raw: []byte(`{"id":"nope","type":"Bogus","displayName":7,"workspaceId":"3f2504e0-4f89-11d3-9a0c-0305e82c3301","extra":1}`)})
	ck.response("Items_GetItem", resp{Status: 404, Raw: []byte(`{"message":"m","requestId":"3f2504e0-4f89-11d3-9a0c-0305e82c3301"}`)})
	ck.response("Items_DeleteItem", resp{Status: 201})
	ck.response("Items_CreateEventstream", resp{Status: 202, Header: http.Header{"Location": {"http://x/v1/operations/1"}}})
	// A polymorphic answer is checked against the subtype its type names.
	ck.response("Topology_GetEventstreamDestination", resp{Status: 200, Raw: []byte(`{"id":"3f2504e0-4f89-11d3-9a0c-0305e82c3301","name":"d","type":"Lakehouse","status":"Running","inputNodes":[],"properties":{"workspaceId":"3f2504e0-4f89-11d3-9a0c-0305e82c3301","itemId":"3f2504e0-4f89-11d3-9a0c-0305e82c3301","bogus":1}}`)})
	want := []string{"deltaTable", "/properties/bogus", `"/id"`, `"/type"`, `"/displayName"`, "/extra", `"/errorCode"`, "status 201", "lacks the x-ms-operation-id header"}
	got := strings.Join(ck.violations, "\n")
	for _, w := range want {
		if !strings.Contains(got, w) {
			t.Errorf("no violation naming %s in:\n%s", w, got)
		}
	}
}
