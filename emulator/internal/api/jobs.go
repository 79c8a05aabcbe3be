package api

import (
	"encoding/json"
	"net/http"
	"time"

	"github.com/fabrictest/fabrictest/emulator/internal/control"
	"github.com/fabrictest/fabrictest/emulator/internal/fabricerr"
	"github.com/fabrictest/fabrictest/emulator/internal/store"
	"github.com/fabrictest/fabrictest/emulator/wire"
)

// fabricTime is the Job Scheduler's timestamp form: UTC, 7 fractional digits,
// no zone; "" (the field left out: the spec's type is a non-nullable
// string) before the instance starts or ends.
func fabricTime(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(wire.JobTimeLayout)
}

// renderJob is j as the Job Scheduler routes answer it; failureReason is
// null unless it Failed, as in the spec's examples.
func renderJob(j store.JobInstance) wire.JobInstance {
	out := wire.JobInstance{ID: j.ID, ItemID: j.ItemID, JobType: j.JobType, InvokeType: j.InvokeType, Status: j.Status, RootActivityID: j.ID,
		StartTimeUtc: fabricTime(j.Start), EndTimeUtc: fabricTime(j.End)}
	if j.Failure != nil {
		out.FailureReason = new(wire.JobFailure)
		_ = json.Unmarshal(j.Failure, out.FailureReason) // written by the jobs runner from the same shape
	}
	if j.TriggerEvent != nil {
		out.TriggerEvent = new(wire.TriggerEvent)
		_ = json.Unmarshal(j.TriggerEvent, out.TriggerEvent)
	}
	return out
}

// jobRef is the call's {job} of its item {id}.
func jobRef(c *call) control.JobRef {
	return control.JobRef{Item: control.ItemRef{WorkspaceID: c.r.PathValue("ws"), ID: c.r.PathValue("id")}, Job: c.r.PathValue("job")}
}

// runJob serves POST …/items/{id}/jobs/{jobType}/instances and the older
// …/jobs/instances?jobType= form: 202 with Location and Retry-After.
func (a jobHandlers) runJob(c *call) error {
	jobType := c.r.PathValue("jobType")
	if jobType == "" {
		jobType = c.r.URL.Query().Get("jobType")
	}
	it, jobType, err := a.plane.CheckJobType(c.r.Context(), c.caller(), jobRef(c).Item, jobType)
	if err != nil {
		return err
	}
	if body, err := a.readBody(c); err != nil {
		return err
	} else if len(body) > 0 {
		var req struct {
			ExecutionData json.RawMessage `json:"executionData"`
			Parameters    json.RawMessage `json:"parameters"`
		}
		if err := fabricerr.DecodeJSON(body, &req); err != nil {
			return err
		}
	}
	inst, err := a.plane.RunJob(c.r.Context(), it, jobType)
	if err != nil {
		return err
	}
	c.location("workspaces", it.WorkspaceID, "items", it.ID, "jobs", "instances", inst.ID)
	c.w.Header().Set("Retry-After", "1")
	c.w.WriteHeader(http.StatusAccepted)
	return nil
}

func (a jobHandlers) listJobs(c *call) error {
	if _, err := a.item(c, "", store.RoleViewer); err != nil {
		return err
	}
	p, err := a.page(c)
	if err != nil {
		return err
	}
	jobs, next, err := a.plane.Jobs(c.r.Context(), c.caller(), jobRef(c).Item, p)
	if err != nil {
		return err
	}
	out := make([]wire.JobInstance, len(jobs))
	for i, j := range jobs {
		out[i] = renderJob(j)
	}
	return list(c, out, next)
}

func (a jobHandlers) getJob(c *call) error {
	j, err := a.plane.Job(c.r.Context(), c.caller(), jobRef(c), store.RoleViewer)
	if err != nil {
		return err
	}
	if j.Status == store.JobNotStarted || j.Status == store.JobInProgress {
		c.w.Header().Set("Retry-After", "1")
	}
	return c.JSON(http.StatusOK, renderJob(j))
}

func (a jobHandlers) cancelJob(c *call) error {
	j, err := a.plane.CancelJob(c.r.Context(), c.caller(), jobRef(c))
	if err != nil {
		return err
	}
	c.location("workspaces", j.WorkspaceID, "items", j.ItemID, "jobs", "instances", j.ID)
	c.w.Header().Set("Retry-After", "1")
	c.w.WriteHeader(http.StatusAccepted)
	return nil
}
