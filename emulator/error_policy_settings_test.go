package emulator_test

import (
	"encoding/json"
	"strings"
	"testing"
)

// wantBadField checks a 400 InvalidInput whose details name field.
func wantBadField(t *testing.T, e *testEnv, r resp, field string) {
	t.Helper()
	e.wantError(r, 400, "InvalidInput")
	var body struct {
		MoreDetails []struct{ ErrorCode, Message string }
	}
	if err := json.Unmarshal(r.Raw, &body); err != nil {
		t.Fatal(err)
	}
	if len(body.MoreDetails) != 1 || body.MoreDetails[0].ErrorCode != "InvalidParameter" || !strings.HasPrefix(body.MoreDetails[0].Message, field+": ") {
		t.Fatalf("details %s, want InvalidParameter naming %s", r.Raw, field)
	}
}

// The native binding's emulator settings are checked as Fabric checks
// a request (fabric-rest-api-specs: 400 with an errorCode and the field in
// moreDetails), and the destination's GET renders them.
func TestErrorPolicySettingsOnNativeBindings(t *testing.T) {
	e := startEnv(t)
	s := newStream(e)
	lh := e.must(201, e.call("POST", "/v1/workspaces/"+s.ws+"/lakehouses", map[string]any{"displayName": "lh"})).str("id")
	eh := e.must(201, e.call("POST", "/v1/workspaces/"+s.ws+"/eventhouses", map[string]any{"displayName": "eh"})).str("id")
	reflex := e.must(201, e.call("POST", "/v1/workspaces/"+s.ws+"/reflexes", map[string]any{"displayName": "alerts"})).str("id")
	path := "/v1/workspaces/" + s.ws + "/eventstreams/" + s.id + "/destinations"
	lake := func(kv ...any) map[string]any {
		b := map[string]any{"type": "Lakehouse", "itemId": lh, "table": "t"}
		for i := 0; i < len(kv); i += 2 {
			b[kv[i].(string)] = kv[i+1]
		}
		return b
	}
	for _, c := range []struct {
		body  map[string]any
		field string
	}{
		{lake("errorPolicy", "explode"), "errorPolicy"},
		{lake("deadLetterTopic", "dead"), "deadLetterTopic"},
		{lake("errorPolicy", "drop", "deadLetterTopic", "dead"), "deadLetterTopic"},
		{lake("errorPolicy", "dlq", "deadLetterTopic", "bad topic!"), "deadLetterTopic"},
		{lake("errorPolicy", "dlq", "deadLetterTopic", strings.Repeat("x", 250)), "deadLetterTopic"},
		{lake("errorPolicy", "dlq", "deadLetterTopic", "__consumer_offsets"), "deadLetterTopic"},
		{lake("errorPolicy", "dlq", "deadLetterTopic", s.id+"."+s.ds), "deadLetterTopic"}, // its own stream: a loop
		{lake("schemaMode", "loose"), "schemaMode"},
		{map[string]any{"type": "Eventhouse", "itemId": eh, "table": "t", "schemaMode": "evolve"}, "schemaMode"},
		{map[string]any{"type": "Reflex", "itemId": reflex, "errorPolicy": "dlq"}, "errorPolicy"},
	} {
		wantBadField(t, e, e.call("POST", path, c.body), c.field)
	}
	wantBadField(t, e, e.call("POST", path, lake("errorPolicy", 3)), "errorPolicy")

	// Valid settings, any case, are stored canonically and rendered; the
	// default dead-letter topic is named.
	d := e.must(201, e.call("POST", path, lake("errorPolicy", "DLQ", "schemaMode", "Evolve")))
	got := e.must(200, e.call("GET", path+"/"+d.str("id"), nil)).Body
	if got["errorPolicy"] != "dlq" || got["schemaMode"] != "evolve" || got["deadLetterTopic"] != s.id+".dlq."+d.str("id") {
		t.Fatalf("GET %v", got)
	}
	// The same body again is idempotent; another policy re-binds it.
	e.must(200, e.call("POST", path, lake("errorPolicy", "dlq", "schemaMode", "evolve")))
	e.must(200, e.call("POST", path, lake("errorPolicy", "fail")))
	list := e.must(200, e.call("GET", path, nil)).Body["value"].([]any)
	if m := list[0].(map[string]any); len(list) != 1 || m["errorPolicy"] != "fail" || m["schemaMode"] != "enforce" || m["deadLetterTopic"] != nil {
		t.Fatalf("after re-binding: %v", list)
	}
}

// A definition carries the same settings in the x-fabrictest extension of
// a destination node (Fabric's destination schema, fabric-rest-api-specs
// eventstream/definitions/destination.json, has no such property).
func TestErrorPolicySettingsInDefinitions(t *testing.T) {
	e := startEnv(t)
	ws := e.workspace("defs")
	lh := e.must(201, e.call("POST", "/v1/workspaces/"+ws+"/lakehouses", map[string]any{"displayName": "bikes_lh"})).str("id")
	create := func(ext any) resp {
		topo := templateTopology(t, ws, lh, "bikes")
		dest := topo["destinations"].([]any)[0].(map[string]any)
		dest["properties"].(map[string]any)["x-fabrictest"] = ext
		return e.call("POST", "/v1/workspaces/"+ws+"/eventstreams", map[string]any{"displayName": "bikes", "definition": definitionOf(topo, nil)})
	}
	at := "eventstream.json destinations[0].properties.x-fabrictest"
	wantBadField(t, e, create(map[string]any{"errorPolicy": "explode"}), at+".errorPolicy")
	wantBadField(t, e, create(map[string]any{"errorPolicy": "drop", "deadLetterTopic": "dead"}), at+".deadLetterTopic")
	wantBadField(t, e, create(map[string]any{"errorPolicy": "dlq", "deadLetterTopc": "dead"}), at+".deadLetterTopc")
	wantBadField(t, e, create(map[string]any{"schemaMode": true}), at+".schemaMode")
	wantBadField(t, e, create("dlq"), at)

	es := e.must(201, create(map[string]any{"errorPolicy": "dlq", "deadLetterTopic": "bikes.dead", "schemaMode": "evolve"}))
	base := "/v1/workspaces/" + ws + "/eventstreams/" + es.str("id")
	list := e.must(200, e.call("GET", base+"/destinations", nil)).Body["value"].([]any)
	if m := list[0].(map[string]any); len(list) != 1 || m["errorPolicy"] != "dlq" || m["deadLetterTopic"] != "bikes.dead" || m["schemaMode"] != "evolve" {
		t.Fatalf("destinations %v", list)
	}
	got := e.must(200, e.call("GET", base+"/destinations/"+list[0].(map[string]any)["id"].(string), nil)).Body
	if got["errorPolicy"] != "dlq" || got["properties"].(map[string]any)["x-fabrictest"] == nil {
		t.Fatalf("GET destination %v", got)
	}
}
