package control

import (
	"context"
	"errors"
	"regexp"
	"slices"
	"strings"

	"github.com/fabrictest/fabrictest/emulator/internal/fabricerr"
	"github.com/fabrictest/fabrictest/emulator/internal/store"
	"github.com/google/uuid"
)

// InvalidJobType answers a job type an item does not run.
const InvalidJobType = "InvalidJobType"

// jobTypeName is what a job type may look like (DefaultJob, RunNotebook, Pipeline, …).
var jobTypeName = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_]{0,127}$`)

// JobRef names a job instance of an item.
type JobRef struct {
	Item ItemRef
	// Job is the instance's id.
	Job string
}

// JobTypeOf checks jobType against the job types of it's item type
// (Config.JobTypes) and returns it in Fabric's spelling. A type whose job
// types the emulator does not know accepts any; so does a job type a Go
// handler claims by name (jobs.Runner.Claims). Anything else is Fabric's
// 400 InvalidJobType ("The requested job type is invalid", Job Scheduler -
// Run On Demand Item Job). field names jobType in errors.
func (p *Plane) JobTypeOf(field string, it store.Item, jobType string) (string, error) {
	if !jobTypeName.MatchString(jobType) {
		return "", fabricerr.Invalid(InvalidJobType, "%s: %q is not a job type (letters, digits, underscore)", field, jobType)
	}
	var known []string
	if p.cfg.JobTypes != nil {
		known = p.cfg.JobTypes(it.Type)
	}
	if known == nil {
		return jobType, nil
	}
	if i := slices.IndexFunc(known, func(j string) bool { return strings.EqualFold(j, jobType) }); i >= 0 {
		return known[i], nil
	}
	if p.cfg.Jobs != nil && p.cfg.Jobs.Claims(it.ID, jobType) {
		return jobType, nil
	}
	return "", fabricerr.Invalid(InvalidJobType, "%s: a %s has no %q job; its job types are %s",
		field, it.Type, jobType, strings.Join(known, ", "))
}

// CheckJobType checks jobType for item ref, where who is a Contributor,
// and returns the item and the job type in Fabric's spelling.
func (p *Plane) CheckJobType(ctx context.Context, who Caller, ref ItemRef, jobType string) (store.Item, string, error) {
	it, err := p.Item(ctx, who, ref, store.RoleContributor)
	if err != nil {
		return it, "", err
	}
	jobType, err = p.JobTypeOf("jobType", it, jobType)
	return it, jobType, err
}

// RunJob submits a job of jobType (checked by CheckJobType) on item it.
func (p *Plane) RunJob(ctx context.Context, it store.Item, jobType string) (store.JobInstance, error) {
	return p.cfg.Jobs.Submit(ctx, store.JobInstance{ID: uuid.NewString(), WorkspaceID: it.WorkspaceID, ItemID: it.ID, JobType: jobType, InvokeType: "Manual"})
}

// Job loads job instance ref of an item where who holds at least min.
func (p *Plane) Job(ctx context.Context, who Caller, ref JobRef, min store.Role) (store.JobInstance, error) {
	it, err := p.Item(ctx, who, ref.Item, min)
	if err != nil {
		return store.JobInstance{}, err
	}
	j, err := p.cfg.Store.GetJob(ctx, ref.Job)
	if errors.Is(err, store.ErrNotFound) || (err == nil && j.ItemID != it.ID) {
		return j, fabricerr.NotFound("JobInstanceNotFound", "JobInstance", ref.Job)
	}
	return j, err
}

// CancelJob cancels job instance ref; who must be a Contributor.
func (p *Plane) CancelJob(ctx context.Context, who Caller, ref JobRef) (store.JobInstance, error) {
	j, err := p.Job(ctx, who, ref, store.RoleContributor)
	if err != nil {
		return j, err
	}
	if err := p.cfg.Jobs.Cancel(ctx, j.ID); errors.Is(err, store.ErrConflict) {
		return j, fabricerr.Invalid("JobAlreadyCompleted", "job instance %s already finished", j.ID)
	} else if err != nil {
		return j, err
	}
	return j, nil
}
