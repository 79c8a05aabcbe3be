package emulator_test

import (
	"context"
	"strings"
	"testing"

	"github.com/fabrictest/fabrictest/emulator"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

func TestGenericItems(t *testing.T) {
	e := startEnv(t)
	ws := e.workspace("items")
	base := "/v1/workspaces/" + ws + "/items"
	nb := e.must(201, e.call("POST", base, map[string]any{"displayName": "nb", "type": "notebook"}))
	if nb.str("type") != "Notebook" || nb.str("workspaceId") != ws || !strings.HasSuffix(nb.Header.Get("Location"), "/items/"+nb.str("id")) {
		t.Fatalf("create answered %s %v", nb.Raw, nb.Header)
	}
	es := e.must(201, e.call("POST", base, map[string]any{"displayName": "nb", "type": "Eventstream"})) // same name, other type: fine
	e.wantError(e.call("POST", base, map[string]any{"displayName": "NB", "type": "Notebook"}), 400, "ItemDisplayNameAlreadyInUse")
	e.wantError(e.call("POST", base, map[string]any{"displayName": "x", "type": "Spreadsheet"}), 400, "InvalidItemType")
	e.wantError(e.call("POST", base, map[string]any{"displayName": "x"}), 400, "InvalidInput")
	e.wantError(e.call("POST", base, map[string]any{"displayName": "x", "type": "Notebook", "description": strings.Repeat("d", 257)}), 400, "InvalidInput")
	e.must(201, e.call("POST", base, map[string]any{"displayName": "x", "type": "Notebook", "description": strings.Repeat("d", 256)}))

	all := e.must(200, e.call("GET", base, nil)).Body["value"].([]any)
	streams := e.must(200, e.call("GET", base+"?type=Eventstream", nil)).Body["value"].([]any)
	if len(all) != 3 || len(streams) != 1 || streams[0].(map[string]any)["id"] != es.str("id") {
		t.Fatalf("list: %d items, %d eventstreams", len(all), len(streams))
	}
	e.wantError(e.call("GET", base+"?type=Nope", nil), 400, "InvalidItemType")

	// The typed route sees Eventstreams only.
	e.must(200, e.call("GET", "/v1/workspaces/"+ws+"/eventstreams/"+es.str("id"), nil))
	e.wantError(e.call("GET", "/v1/workspaces/"+ws+"/eventstreams/"+nb.str("id"), nil), 404, "ItemNotFound")
	if n := len(e.must(200, e.call("GET", "/v1/workspaces/"+ws+"/eventstreams", nil)).Body["value"].([]any)); n != 1 {
		t.Fatalf("typed list has %d items", n)
	}
	e.wantError(e.call("POST", "/v1/workspaces/"+ws+"/eventstreams", map[string]any{"displayName": "y", "type": "Notebook"}), 400, "InvalidItemType")

	p := e.must(200, e.call("PATCH", base+"/"+nb.str("id"), map[string]any{"description": "hello"}))
	if p.str("description") != "hello" || p.str("displayName") != "nb" {
		t.Fatalf("patch answered %s", p.Raw)
	}
	e.wantError(e.call("PATCH", base+"/"+nb.str("id"), map[string]any{"displayName": "x"}), 400, "ItemDisplayNameAlreadyInUse")
	e.must(200, e.call("DELETE", base+"/"+nb.str("id"), nil))
	e.wantError(e.call("GET", base+"/"+nb.str("id"), nil), 404, "ItemNotFound")

	// An item id from another workspace is not found here.
	other := e.workspace("other")
	e.wantError(e.call("GET", "/v1/workspaces/"+other+"/items/"+es.str("id"), nil), 404, "ItemNotFound")
}

// TestEventstreamTopicLifecycle checks the topic on the broker itself.
func TestEventstreamTopicLifecycle(t *testing.T) {
	e := startEnv(t, emulator.WithPartitions(3))
	ws := e.workspace("topics")
	es, ds := e.eventstream(ws, "orders")
	get := e.must(200, e.call("GET", "/v1/workspaces/"+ws+"/eventstreams/"+es, nil))
	stream := get.Body["properties"].(map[string]any)["streams"].([]any)[0].(map[string]any)
	if stream["id"] != ds || stream["type"] != "DefaultStream" {
		t.Fatalf("streams[0] = %v", stream)
	}
	topic := es + "." + ds
	if stream["topic"] != topic {
		t.Fatalf("topic %v, want %s", stream["topic"], topic)
	}
	adm := admin(t, e.srv.KafkaBootstrap())
	details, err := adm.ListTopics(context.Background(), topic)
	if err != nil || details[topic].Err != nil || len(details[topic].Partitions) != 3 {
		t.Fatalf("topic %s on the broker: %v %+v", topic, err, details[topic])
	}
	e.must(200, e.call("DELETE", "/v1/workspaces/"+ws+"/eventstreams/"+es, nil))
	if topicExists(t, e.srv.KafkaBootstrap(), topic) {
		t.Fatalf("topic %s still exists after delete", topic)
	}

	// Deleting a workspace deletes its Eventstreams' topics too.
	es2, ds2 := e.eventstream(ws, "more")
	e.must(200, e.call("DELETE", "/v1/workspaces/"+ws, nil))
	if topicExists(t, e.srv.KafkaBootstrap(), es2+"."+ds2) {
		t.Fatal("topic survives its workspace")
	}
}

func admin(t *testing.T, seeds []string) *kadm.Client {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(seeds...))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cl.Close)
	return kadm.NewClient(cl)
}

// topicExists asks the broker afresh: kadm caches metadata per client.
func topicExists(t *testing.T, seeds []string, topic string) bool {
	t.Helper()
	details, err := admin(t, seeds).ListTopics(context.Background(), topic)
	if err != nil {
		t.Fatal(err)
	}
	d, ok := details[topic]
	return ok && d.Err == nil
}
