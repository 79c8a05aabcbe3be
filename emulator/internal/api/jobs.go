package api

import (
	"encoding/json"
	"errors"
	"net/http"
	"regexp"
	"time"

	"github.com/fabrictest/fabrictest/emulator/internal/fabricerr"
	"github.com/fabrictest/fabrictest/emulator/internal/store"
	"github.com/fabrictest/fabrictest/emulator/wire"
	"github.com/google/uuid"
)

// jobTypeName is what a job type may look like (DefaultJob, RunNotebook, Pipeline, …).
var jobTypeName = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_]{0,127}$`)

func validJobType(field, s string) error {
	if !jobTypeName.MatchString(s) {
		return fabricerr.New(http.StatusBadRequest, "InvalidJobType", "%s: %q is not a job type (letters, digits, underscore)", field, s)
	}
	return nil
}

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

// runJob serves POST …/items/{id}/jobs/{jobType}/instances and the older
// …/jobs/instances?jobType= form: 202 with Location and Retry-After.
func (a *API) runJob(c *call) error {
	it, err := a.item(c, "", store.RoleContributor)
	if err != nil {
		return err
	}
	jobType := c.r.PathValue("jobType")
	if jobType == "" {
		jobType = c.r.URL.Query().Get("jobType")
	}
	if jobType, err = a.jobTypeOf("jobType", it, jobType); err != nil {
		return err
	}
	if body, err := a.readBody(c); err != nil {
		return err
	} else if len(body) > 0 {
		var req struct {
			ExecutionData json.RawMessage `json:"executionData"`
			Parameters    json.RawMessage `json:"parameters"`
		}
		if err := decodeJSON(body, &req); err != nil {
			return err
		}
	}
	inst, err := a.cfg.Jobs.Submit(c.r.Context(), store.JobInstance{ID: uuid.NewString(), WorkspaceID: it.WorkspaceID, ItemID: it.ID, JobType: jobType, InvokeType: "Manual"})
	if err != nil {
		return err
	}
	c.location("workspaces", it.WorkspaceID, "items", it.ID, "jobs", "instances", inst.ID)
	c.w.Header().Set("Retry-After", "1")
	c.w.WriteHeader(http.StatusAccepted)
	return nil
}

func (a *API) listJobs(c *call) error {
	it, err := a.item(c, "", store.RoleViewer)
	if err != nil {
		return err
	}
	p, err := a.page(c)
	if err != nil {
		return err
	}
	jobs, next, err := a.cfg.Store.ListJobs(c.r.Context(), it.ID, p)
	if err != nil {
		return err
	}
	out := make([]wire.JobInstance, len(jobs))
	for i, j := range jobs {
		out[i] = renderJob(j)
	}
	return list(c, out, next)
}

// job loads {job} of the call's item.
func (a *API) job(c *call, min store.Role) (store.JobInstance, error) {
	it, err := a.item(c, "", min)
	if err != nil {
		return store.JobInstance{}, err
	}
	id := c.r.PathValue("job")
	j, err := a.cfg.Store.GetJob(c.r.Context(), id)
	if errors.Is(err, store.ErrNotFound) || (err == nil && j.ItemID != it.ID) {
		return j, fabricerr.NotFound("JobInstanceNotFound", "JobInstance", id)
	}
	return j, err
}

func (a *API) getJob(c *call) error {
	j, err := a.job(c, store.RoleViewer)
	if err != nil {
		return err
	}
	if j.Status == store.JobNotStarted || j.Status == store.JobInProgress {
		c.w.Header().Set("Retry-After", "1")
	}
	return c.JSON(http.StatusOK, renderJob(j))
}

func (a *API) cancelJob(c *call) error {
	j, err := a.job(c, store.RoleContributor)
	if err != nil {
		return err
	}
	if err := a.cfg.Jobs.Cancel(c.r.Context(), j.ID); errors.Is(err, store.ErrConflict) {
		return fabricerr.New(http.StatusBadRequest, "JobAlreadyCompleted", "job instance %s already finished", j.ID)
	} else if err != nil {
		return err
	}
	c.location("workspaces", j.WorkspaceID, "items", j.ItemID, "jobs", "instances", j.ID)
	c.w.Header().Set("Retry-After", "1")
	c.w.WriteHeader(http.StatusAccepted)
	return nil
}
