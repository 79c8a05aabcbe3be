package emulator_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/fabrictest/fabrictest/emulator"
	"github.com/fabrictest/fabrictest/fabrictest"
)

// Definitions of stored item types: Items - Get/Update <Type> Definition
// and Microsoft's definition articles (learn.microsoft.com/rest/api/fabric/
// articles/item-management/definitions/: data-pipeline-definition,
// notebook-definition, spark-job-definition).

// orderedParts is a definition of path, content pairs in the order given.
func orderedParts(format string, kv ...string) map[string]any {
	parts := []any{}
	for i := 0; i < len(kv); i += 2 {
		parts = append(parts, map[string]any{"path": kv[i], "payload": base64.StdEncoding.EncodeToString([]byte(kv[i+1])), "payloadType": "InlineBase64"})
	}
	d := map[string]any{"parts": parts}
	if format != "" {
		d["format"] = format
	}
	return d
}

func TestItemDefinitionsRoundTripByteExact(t *testing.T) {
	e := startEnv(t)
	ws := e.workspace("defs")
	platform := "{\n  \"metadata\": {\"type\": \"DataPipeline\", \"displayName\": \"ingest\"},\n  \"config\": {\"version\": \"2.0\", \"logicalId\": \"11111111-2222-3333-4444-555555555555\"}\n}"
	content := "{\"properties\":{\"activities\":[{\"name\":\"Wait1\",\"type\":\"Wait\",\"typeProperties\":{\"waitTimeInSeconds\":1}}]}}\n"
	cases := []struct {
		collection, name, format string
		kv                       []string
	}{
		{"dataPipelines", "ingest", "", []string{"pipeline-content.json", content, ".platform", platform}},
		{"notebooks", "nb_py", "", []string{"notebook-content.py", "# Fabric notebook source\n\n# CELL ********************\nprint('é')\n"}},
		{"notebooks", "nb_ipynb", "ipynb", []string{"notebook-content.ipynb", `{"nbformat":4,"nbformat_minor":5,"cells":[],"metadata":{}}`}},
		{"sparkJobDefinitions", "sjd", "SparkJobDefinitionV1", []string{"SparkJobDefinitionV1.json", `{"executableFile":"main.py","defaultLakehouseArtifactId":""}`}},
		{"semanticModels", "sm", "TMDL", []string{"definition.pbism", `{"version":"4.0"}`, "definition/model.tmdl", "model Model\n"}},
		{"environments", "env", "", []string{"Setting/Sparkcompute.yml", "instance_pool_id: null\n", "Libraries/PublicLibraries/environment.yml", "dependencies:\n  - pip:\n    - requests==2.32.3\n"}},
	}
	for _, c := range cases {
		base := "/v1/workspaces/" + ws + "/" + c.collection
		id := e.must(201, e.call("POST", base, map[string]any{"displayName": c.name, "definition": orderedParts(c.format, c.kv...)})).str("id")
		r := e.must(200, e.call("POST", base+"/"+id+"/getDefinition", nil))
		got := rawParts(t, r)
		if f, _ := r.Body["definition"].(map[string]any)["format"].(string); f != c.format {
			t.Fatalf("%s: format %q, want %q", c.name, f, c.format)
		}
		for i := 0; i < len(c.kv); i += 2 {
			if got[i/2].Path != c.kv[i] || got[i/2].Payload != c.kv[i+1] {
				t.Fatalf("%s: part %d is %q %q, want %q %q", c.name, i/2, got[i/2].Path, got[i/2].Payload, c.kv[i], c.kv[i+1])
			}
		}
		if len(c.kv)/2 == len(got) {
			continue // the .platform sent, as sent
		}
		var pl struct{ Metadata map[string]string }
		if err := json.Unmarshal([]byte(got[len(got)-1].Payload), &pl); err != nil || got[len(got)-1].Path != ".platform" || pl.Metadata["displayName"] != c.name {
			t.Fatalf("%s: the made .platform: %+v (%v)", c.name, got[len(got)-1], err)
		}
	}

	// updateDefinition replaces the parts; the item keeps its name unless
	// updateMetadata=true, and the .platform then names the item as it is.
	pl := e.must(200, e.call("GET", "/v1/workspaces/"+ws+"/dataPipelines?", nil)).Body["value"].([]any)[0].(map[string]any)["id"].(string)
	base := "/v1/workspaces/" + ws + "/dataPipelines/" + pl
	renamed := strings.Replace(platform, `"ingest"`, `"ingest2"`, 1)
	e.must(200, e.call("POST", base+"/updateDefinition", map[string]any{"definition": orderedParts("", "pipeline-content.json", "{}", ".platform", renamed)}))
	if n := e.must(200, e.call("GET", base, nil)).str("displayName"); n != "ingest" {
		t.Fatalf("renamed without updateMetadata: %s", n)
	}
	got := rawParts(t, e.must(200, e.call("POST", base+"/getDefinition", nil)))
	if got[0].Payload != "{}" || !strings.Contains(got[1].Payload, `"displayName": "ingest"`) || !strings.Contains(got[1].Payload, "11111111-2222") {
		t.Fatalf("after update: %+v", got)
	}
	e.must(200, e.call("POST", base+"/updateDefinition?updateMetadata=true", map[string]any{"definition": orderedParts("", "pipeline-content.json", content, ".platform", renamed)}))
	if n := e.must(200, e.call("GET", base, nil)).str("displayName"); n != "ingest2" {
		t.Fatalf("updateMetadata=true did not rename: %s", n)
	}
	if got := rawParts(t, e.must(200, e.call("POST", "/v1/workspaces/"+ws+"/items/"+pl+"/getDefinition", nil))); got[1].Payload != renamed || got[0].Payload != content {
		t.Fatalf("after updateMetadata: %+v", got)
	}
}

func TestItemDefinitionRefusals(t *testing.T) {
	e := startEnv(t)
	ws := e.workspace("refusals")
	pipelines := "/v1/workspaces/" + ws + "/dataPipelines"
	create := func(body map[string]any) resp { return e.call("POST", pipelines, body) }
	bad := func(kv ...string) map[string]any {
		return map[string]any{"displayName": "p", "definition": orderedParts("", kv...)}
	}
	e.wantError(create(map[string]any{"displayName": "p", "definition": map[string]any{"parts": []any{
		map[string]any{"path": "pipeline-content.json", "payload": "not base64!", "payloadType": "InlineBase64"}}}}), 400, "CorruptedPayload")
	e.wantError(create(bad("pipeline-content.json", "{not json")), 400, "CorruptedPayload")
	e.wantError(create(bad("other.json", "{}")), 400, "MissingDefinitionPart")
	e.wantError(create(bad("pipeline-content.json", "{}", "pipeline-content.json", "{}")), 400, "InvalidInput")
	e.wantError(create(map[string]any{"displayName": "p", "definition": map[string]any{"parts": []any{
		map[string]any{"path": "pipeline-content.json", "payload": "e30=", "payloadType": "Inline"}}}}), 400, "InvalidInput")
	e.wantError(e.call("POST", "/v1/workspaces/"+ws+"/notebooks", map[string]any{"displayName": "n", "definition": orderedParts("ipynb", "notebook-content.py", "x")}), 400, "MissingDefinitionPart")
	e.wantError(e.call("POST", "/v1/workspaces/"+ws+"/notebooks", map[string]any{"displayName": "n", "definition": orderedParts("docx", "notebook-content.py", "x")}), 400, "InvalidInput")
	e.wantError(e.call("POST", "/v1/workspaces/"+ws+"/items", map[string]any{"displayName": "m", "type": "MLModel", "definition": orderedParts("", "a.json", "{}")}), 400, "OperationNotSupportedForItem")
	if n := len(e.must(200, e.call("GET", "/v1/workspaces/"+ws+"/items", nil)).Body["value"].([]any)); n != 0 {
		t.Fatalf("refused creates left %d items", n)
	}

	// A refused update keeps the stored definition.
	id := e.must(201, create(bad("pipeline-content.json", `{"a":1}`))).str("id")
	e.wantError(e.call("POST", pipelines+"/"+id+"/updateDefinition", map[string]any{"definition": orderedParts("", "x.json", "{}")}), 400, "MissingDefinitionPart")
	e.wantError(e.call("POST", pipelines+"/"+id+"/updateDefinition?updateMetadata=maybe", map[string]any{"definition": orderedParts("", "pipeline-content.json", "{}")}), 400, "InvalidInput")
	if got := rawParts(t, e.must(200, e.call("POST", pipelines+"/"+id+"/getDefinition", nil))); got[0].Payload != `{"a":1}` {
		t.Fatalf("a refused update changed the definition: %+v", got)
	}
	// The emulator does not convert formats.
	nb := e.must(201, e.call("POST", "/v1/workspaces/"+ws+"/notebooks", map[string]any{"displayName": "n", "definition": orderedParts("", "notebook-content.py", "x")})).str("id")
	e.wantError(e.call("POST", "/v1/workspaces/"+ws+"/notebooks/"+nb+"/getDefinition?format=ipynb", nil), 400, "InvalidInput")
	e.must(200, e.call("POST", "/v1/workspaces/"+ws+"/notebooks/"+nb+"/getDefinition?format=fabricGitSource", nil))
}

// TestItemDefinitionsAsync: with --async-operations create, getDefinition
// and updateDefinition answer 202 and the operation's result (Long running
// operations, learn.microsoft.com/rest/api/fabric/articles/long-running-operation).
func TestItemDefinitionsAsync(t *testing.T) {
	e := startEnv(t, emulator.WithAsyncOperations())
	ws := e.workspace("async")
	base := "/v1/workspaces/" + ws + "/dataPipelines"
	op := e.accepted(e.call("POST", base, map[string]any{"displayName": "p", "definition": orderedParts("", "pipeline-content.json", `{"v":1}`)}))
	if st := e.poll(op); st.str("status") != "Succeeded" {
		t.Fatalf("create: %s", st.Raw)
	}
	id := e.must(200, e.call("GET", op+"/result", nil)).str("id")
	op = e.accepted(e.call("POST", base+"/"+id+"/updateDefinition", map[string]any{"definition": orderedParts("", "pipeline-content.json", `{"v":2}`)}))
	e.poll(op)
	op = e.accepted(e.call("POST", base+"/"+id+"/getDefinition", nil))
	e.poll(op)
	if got := rawParts(t, e.must(200, e.call("GET", op+"/result", nil))); got[0].Payload != `{"v":2}` {
		t.Fatalf("async definition: %+v", got)
	}
	op = e.accepted(e.call("POST", base, map[string]any{"displayName": "q", "definition": orderedParts("", "x.json", `{}`)}))
	if st := e.poll(op); st.str("status") != "Failed" || !strings.Contains(string(st.Raw), "MissingDefinitionPart") {
		t.Fatalf("refused async create: %s", st.Raw)
	}
}

// TestJobTypesPerItemType follows Job Scheduler - Run On Demand Item Job:
// each item type runs its own job types (Pipeline, RunNotebook, sparkjob,
// TableMaintenance); another is 400 InvalidJobType.
func TestJobTypesPerItemType(t *testing.T) {
	e := startEnv(t)
	ws := e.workspace("jobtypes")
	var ran atomic.Int32
	e.srv.HandleJobs("", "", func(context.Context, emulator.Job) error { ran.Add(1); return nil })
	cases := []struct{ collection, job, wrong string }{
		{"dataPipelines", "Pipeline", "RunNotebook"},
		{"notebooks", "RunNotebook", "Pipeline"},
		{"sparkJobDefinitions", "sparkjob", "Pipeline"},
		{"lakehouses", "TableMaintenance", "RunNotebook"},
	}
	for i, c := range cases {
		id := e.must(201, e.call("POST", "/v1/workspaces/"+ws+"/"+c.collection, map[string]any{"displayName": fmt.Sprint("item_", i)})).str("id")
		jobs := "/v1/workspaces/" + ws + "/items/" + id + "/jobs/"
		j := e.waitJob(e.must(202, e.call("POST", jobs+"instances?jobType="+c.job, nil)).Header.Get("Location"))
		if j.str("status") != "Completed" || j.str("jobType") != c.job {
			t.Fatalf("%s %s: %s", c.collection, c.job, j.Raw)
		}
		e.wantError(e.call("POST", jobs+c.wrong+"/instances", nil), 400, "InvalidJobType")
	}
	if ran.Load() != int32(len(cases)) {
		t.Fatalf("the handler ran %d jobs, want %d", ran.Load(), len(cases))
	}
	// A type whose job types the emulator does not know takes any; a
	// handler registered by name adds a job type to an item.
	rep := e.must(201, e.call("POST", "/v1/workspaces/"+ws+"/reports", map[string]any{"displayName": "r"})).str("id")
	e.must(202, e.call("POST", "/v1/workspaces/"+ws+"/items/"+rep+"/jobs/DefaultJob/instances", nil))
	nb := e.must(201, e.call("POST", "/v1/workspaces/"+ws+"/notebooks", map[string]any{"displayName": "custom"})).str("id")
	e.wantError(e.call("POST", "/v1/workspaces/"+ws+"/items/"+nb+"/jobs/Custom/instances", nil), 400, "InvalidJobType")
	e.srv.HandleJobs(nb, "Custom", func(context.Context, emulator.Job) error { return nil })
	e.must(202, e.call("POST", "/v1/workspaces/"+ws+"/items/"+nb+"/jobs/Custom/instances", nil))
}

// TestReflexTriggerStartsPipelinePerEvent: an Activator rule on an
// Eventstream whose action runs a Data Pipeline starts one Pipeline job
// per event, invokeType EventTriggered, the event carried (Activator's
// "Run a Fabric item" action, learn.microsoft.com/fabric/real-time-intelligence/data-activator/activator-trigger-fabric-items).
func TestReflexTriggerStartsPipelinePerEvent(t *testing.T) {
	e := startEnv(t)
	s := newStream(e)
	reflex := e.must(201, e.call("POST", "/v1/workspaces/"+s.ws+"/reflexes", map[string]any{"displayName": "alerts"})).str("id")
	pl := e.must(201, e.call("POST", "/v1/workspaces/"+s.ws+"/dataPipelines", map[string]any{"displayName": "on-event",
		"definition": orderedParts("", "pipeline-content.json", `{"properties":{"activities":[]}}`)})).str("id")
	triggers := "/v1/workspaces/" + s.ws + "/reflexes/" + reflex + "/triggers"
	rule := func(job string) map[string]any {
		return map[string]any{"displayName": "every event", "eventType": "Microsoft.Fabric.Eventstream.EventReceived",
			"source": map[string]any{"itemId": s.id}, "action": map[string]any{"itemId": pl, "jobType": job}}
	}
	e.wantError(e.call("POST", triggers, rule("RunNotebook")), 400, "InvalidJobType")
	e.must(201, e.call("POST", triggers, rule("Pipeline")))
	var seen atomic.Int32
	e.srv.HandleJobs(pl, "Pipeline", func(_ context.Context, j emulator.Job) error {
		if j.InvokeType != "EventTriggered" || len(j.TriggerEvent) == 0 {
			return fmt.Errorf("job %+v", j)
		}
		seen.Add(1)
		return nil
	})
	e.must(201, e.call("POST", "/v1/workspaces/"+s.ws+"/eventstreams/"+s.id+"/destinations", map[string]any{"type": "Reflex", "itemId": reflex}))
	e.must(200, e.call("POST", s.produce, `{"events":[{"key":"a","value":{"n":1}},{"key":"b","value":{"n":2}},{"key":"c","value":{"n":3}}]}`))
	jobs := listOf[fabrictest.JobInstance](t, e.must(200, e.call("GET", "/v1/workspaces/"+s.ws+"/items/"+pl+"/jobs/instances", nil)))
	keys := map[string]bool{}
	for _, j := range jobs {
		if j.JobType != "Pipeline" || j.InvokeType != "EventTriggered" || j.TriggerEvent == nil || j.TriggerEvent.Source.ItemID != s.id {
			t.Fatalf("job %+v", j)
		}
		keys[j.TriggerEvent.Key] = true
	}
	if len(jobs) != 3 || !keys["a"] || !keys["c"] {
		t.Fatalf("%d jobs for 3 events: %v", len(jobs), keys)
	}
	for deadline := time.Now().Add(10 * time.Second); seen.Load() != 3; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the handler ran %d Pipeline jobs, want 3", seen.Load())
		}
	}
}
