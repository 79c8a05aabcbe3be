package emulator_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/fabrictest/fabrictest/emulator"
	"github.com/fabrictest/fabrictest/fabrictest"
)

// waitJob polls a job instance until it leaves NotStarted/InProgress.
func (e *testEnv) waitJob(location string) resp {
	e.t.Helper()
	path := location[strings.Index(location, "/v1/"):]
	deadline := time.Now().Add(10 * time.Second)
	for {
		r := e.must(200, e.call("GET", path, nil))
		if s := r.str("status"); s != "NotStarted" && s != "InProgress" {
			return r
		}
		if time.Now().After(deadline) {
			e.t.Fatalf("job %s still %s", path, r.str("status"))
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestManualJobs(t *testing.T) {
	e := startEnv(t)
	ws := e.workspace("jobs")
	nb := e.must(201, e.call("POST", "/v1/workspaces/"+ws+"/items", map[string]any{"displayName": "nb", "type": "Notebook"})).str("id")
	base := "/v1/workspaces/" + ws + "/items/" + nb + "/jobs"

	// Nobody runs it: Failed with NoJobRunner, never Completed.
	r := e.must(202, e.call("POST", base+"/RunNotebook/instances", nil))
	if r.Header.Get("Location") == "" || r.Header.Get("Retry-After") == "" {
		t.Fatalf("202 without Location/Retry-After: %v", r.Header)
	}
	j := e.waitJob(r.Header.Get("Location"))
	if ji := decodeAs[fabrictest.JobInstance](t, j); ji.Status != fabrictest.JobFailed || ji.FailureReason == nil || ji.FailureReason.ErrorCode != "NoJobRunner" {
		t.Fatalf("unrun job: %s", j.Raw)
	}

	var ran atomic.Int32
	e.srv.HandleJobs(nb, "RunNotebook", func(ctx context.Context, j emulator.Job) error {
		ran.Add(1)
		if j.InvokeType != "Manual" || j.ItemID != nb {
			return fmt.Errorf("unexpected job %+v", j)
		}
		return nil
	})
	e.srv.HandleJobs(nb, "Pipeline", func(context.Context, emulator.Job) error { return errors.New("disk full") })
	ok := e.waitJob(e.must(202, e.call("POST", base+"/instances?jobType=RunNotebook", nil)).Header.Get("Location"))
	if ji := decodeAs[fabrictest.JobInstance](t, ok); ji.Status != fabrictest.JobCompleted || ji.StartTimeUtc.IsZero() || ji.EndTimeUtc.IsZero() || ji.InvokeType != "Manual" || ran.Load() != 1 {
		t.Fatalf("completed job: %s (ran %d)", ok.Raw, ran.Load())
	}
	failed := e.waitJob(e.must(202, e.call("POST", base+"/Pipeline/instances", nil)).Header.Get("Location"))
	if failed.str("status") != "Failed" || !strings.Contains(string(failed.Raw), "disk full") {
		t.Fatalf("failed job: %s", failed.Raw)
	}

	// Cancel an in-flight job; a finished one cannot be cancelled.
	release := make(chan struct{})
	e.srv.HandleJobs(nb, "Slow", func(ctx context.Context, _ emulator.Job) error {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-release:
			return nil
		}
	})
	defer close(release)
	loc := e.must(202, e.call("POST", base+"/Slow/instances", nil)).Header.Get("Location")
	path := loc[strings.Index(loc, "/v1/"):]
	e.must(202, e.call("POST", path+"/cancel", nil))
	if c := e.waitJob(loc); c.str("status") != "Cancelled" {
		t.Fatalf("cancelled job: %s", c.Raw)
	}
	e.wantError(e.call("POST", path+"/cancel", nil), 400, "JobAlreadyCompleted")

	list := listOf[fabrictest.JobInstance](t, e.must(200, e.call("GET", base+"/instances", nil)))
	if len(list) != 4 {
		t.Fatalf("%d job instances listed, want 4", len(list))
	}
	e.wantError(e.call("POST", base+"/bad-type!/instances", nil), 400, "InvalidJobType")
	e.wantError(e.call("GET", base+"/instances/"+ws, nil), 404, "JobInstanceNotFound")
}

func TestJobWebhook(t *testing.T) {
	var got atomic.Value
	hook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var j map[string]any
		_ = json.NewDecoder(r.Body).Decode(&j)
		got.Store(j)
		if j["jobType"] == "Pipeline" {
			http.Error(w, "not today", http.StatusTeapot)
		}
	}))
	defer hook.Close()
	e := startEnv(t, emulator.WithJobWebhook(hook.URL))
	ws := e.workspace("hook")
	nb := e.must(201, e.call("POST", "/v1/workspaces/"+ws+"/items", map[string]any{"displayName": "nb", "type": "Notebook"})).str("id")
	base := "/v1/workspaces/" + ws + "/items/" + nb + "/jobs/"
	if j := e.waitJob(e.must(202, e.call("POST", base+"RunNotebook/instances", nil)).Header.Get("Location")); j.str("status") != "Completed" {
		t.Fatalf("webhook job: %s", j.Raw)
	}
	if j := got.Load().(map[string]any); j["itemId"] != nb || j["jobType"] != "RunNotebook" {
		t.Fatalf("webhook received %v", j)
	}
	pl := e.must(201, e.call("POST", "/v1/workspaces/"+ws+"/dataPipelines", map[string]any{"displayName": "pl"})).str("id")
	j := e.waitJob(e.must(202, e.call("POST", "/v1/workspaces/"+ws+"/items/"+pl+"/jobs/Pipeline/instances", nil)).Header.Get("Location"))
	if j.str("status") != "Failed" || !strings.Contains(string(j.Raw), "not today") {
		t.Fatalf("refused webhook job: %s", j.Raw)
	}
}

// reflexSetup makes an Eventstream, a Reflex, a Notebook and a trigger.
func reflexSetup(t *testing.T, e *testEnv) (s stream, reflex, nb, trig string) {
	s = newStream(e)
	reflex = e.must(201, e.call("POST", "/v1/workspaces/"+s.ws+"/reflexes", map[string]any{"displayName": "alerts"})).str("id")
	nb = e.must(201, e.call("POST", "/v1/workspaces/"+s.ws+"/items", map[string]any{"displayName": "on-event", "type": "Notebook"})).str("id")
	trig = e.must(201, e.call("POST", "/v1/workspaces/"+s.ws+"/reflexes/"+reflex+"/triggers", map[string]any{
		"displayName": "every event", "eventType": "Microsoft.Fabric.Eventstream.EventReceived",
		"source": map[string]any{"itemId": s.id}, "action": map[string]any{"itemId": nb, "jobType": "RunNotebook"},
	})).str("id")
	return
}

func TestTriggerValidation(t *testing.T) {
	e := startEnv(t)
	s, reflex, nb, trig := reflexSetup(t, e)
	base := "/v1/workspaces/" + s.ws + "/reflexes/" + reflex + "/triggers"
	good := func() map[string]any {
		return map[string]any{"displayName": "t", "eventType": "Microsoft.Fabric.Eventstream.EventReceived",
			"source": map[string]any{"itemId": s.id}, "action": map[string]any{"itemId": nb, "jobType": "RunNotebook"}}
	}
	bad := good()
	bad["eventType"] = "Microsoft.Fabric.ItemChanged"
	e.wantError(e.call("POST", base, bad), 400, "InvalidInput")
	bad = good()
	bad["source"] = map[string]any{"itemId": nb}
	e.wantError(e.call("POST", base, bad), 400, "InvalidInput")
	bad = good()
	bad["action"] = map[string]any{"itemId": s.ws, "jobType": "RunNotebook"}
	e.wantError(e.call("POST", base, bad), 404, "ItemNotFound")
	bad = good()
	bad["action"] = map[string]any{"itemId": nb, "jobType": "no spaces allowed"}
	e.wantError(e.call("POST", base, bad), 400, "InvalidJobType")

	got := e.must(200, e.call("GET", base+"/"+trig, nil))
	if got.Body["enabled"] != true || got.Body["action"].(map[string]any)["workspaceId"] != s.ws {
		t.Fatalf("trigger: %s", got.Raw)
	}
	p := e.must(200, e.call("PATCH", base+"/"+trig, map[string]any{"enabled": false}))
	if p.Body["enabled"] != false || p.str("displayName") != "every event" {
		t.Fatalf("patched trigger: %s", p.Raw)
	}
	if n := len(e.must(200, e.call("GET", base, nil)).Body["value"].([]any)); n != 1 {
		t.Fatalf("%d triggers", n)
	}
	e.must(200, e.call("DELETE", base+"/"+trig, nil))
	e.wantError(e.call("GET", base+"/"+trig, nil), 404, "TriggerNotFound")
}

func TestReflexDestinationStartsOneJobPerEvent(t *testing.T) {
	e := startEnv(t)
	s, reflex, nb, trig := reflexSetup(t, e)
	var seen atomic.Int32
	e.srv.HandleJobs(nb, "RunNotebook", func(_ context.Context, j emulator.Job) error {
		seen.Add(1)
		return nil
	})
	jobsOf := func() []fabrictest.JobInstance {
		return listOf[fabrictest.JobInstance](t, e.must(200, e.call("GET", "/v1/workspaces/"+s.ws+"/items/"+nb+"/jobs/instances", nil)))
	}

	// A trigger without a bound Reflex destination fires nothing.
	e.must(200, e.call("POST", s.produce, `{"events":[{"value":{"n":-1}}]}`))
	if n := len(jobsOf()); n != 0 {
		t.Fatalf("%d jobs without a Reflex destination", n)
	}

	dest := "/v1/workspaces/" + s.ws + "/eventstreams/" + s.id + "/destinations"
	e.wantError(e.call("POST", dest, map[string]any{"type": "Reflex", "itemId": nb}), 400, "InvalidInput")
	e.wantError(e.call("POST", dest, map[string]any{"type": "Reflex", "itemId": reflex, "table": "x"}), 400, "InvalidInput")
	e.must(201, e.call("POST", dest, map[string]any{"type": "Reflex", "itemId": reflex}))
	events := []any{}
	for i := range 25 {
		events = append(events, map[string]any{"key": fmt.Sprint("k", i), "value": map[string]any{"n": i}})
	}
	e.must(200, e.call("POST", s.produce, map[string]any{"events": events}))
	jobs := jobsOf()
	if len(jobs) != 25 {
		t.Fatalf("%d jobs for 25 events", len(jobs))
	}
	values := map[string]bool{}
	for _, j := range jobs {
		ev := j.TriggerEvent
		if j.InvokeType != "EventTriggered" || ev == nil || ev.EventType != "Microsoft.Fabric.Eventstream.EventReceived" || ev.Source.ItemID != s.id {
			t.Fatalf("job %v", j)
		}
		values[ev.Key+"="+ev.Value] = true
	}
	if len(values) != 25 || !values[`k7={"n":7}`] {
		t.Fatalf("jobs carry %d distinct events", len(values))
	}
	for deadline := time.Now().Add(10 * time.Second); seen.Load() != 25; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the handler ran %d jobs, want 25", seen.Load())
		}
	}

	// A disabled trigger fires nothing.
	e.must(200, e.call("PATCH", "/v1/workspaces/"+s.ws+"/reflexes/"+reflex+"/triggers/"+trig, map[string]any{"enabled": false}))
	e.must(200, e.call("POST", s.produce, `{"events":[{"value":1}]}`))
	if n := len(jobsOf()); n != 25 {
		t.Fatalf("%d jobs after a disabled trigger, want 25", n)
	}

	// A deleted action item fails the delivery with a clear error; the event is not lost.
	e.must(200, e.call("PATCH", "/v1/workspaces/"+s.ws+"/reflexes/"+reflex+"/triggers/"+trig, map[string]any{"enabled": true}))
	e.must(200, e.call("DELETE", "/v1/workspaces/"+s.ws+"/items/"+nb, nil))
	r := e.call("POST", s.produce, `{"events":[{"value":"after delete"}]}`)
	e.wantError(r, 502, "DestinationFailed")
	if !strings.Contains(r.str("message"), "no longer exists") || !strings.Contains(r.str("message"), "Reflex") {
		t.Fatalf("502 does not explain: %s", r.str("message"))
	}
}
