package api

import (
	"net/http"
	"slices"
	"strings"

	"github.com/fabrictest/fabrictest/emulator/internal/fabricerr"
	"github.com/fabrictest/fabrictest/emulator/internal/store"
)

// jobTypeOf checks jobType against the job types of it's item type
// (itemTypeTable) and returns it in Fabric's spelling. A type whose job
// types the emulator does not know accepts any; so does a job type a Go
// handler claims by name (jobs.Runner.Claims). Anything else is Fabric's
// 400 InvalidJobType ("The requested job type is invalid", Job Scheduler -
// Run On Demand Item Job).
func (a *API) jobTypeOf(field string, it store.Item, jobType string) (string, error) {
	if err := validJobType(field, jobType); err != nil {
		return "", err
	}
	row, ok := itemTypeOf(it.Type)
	if !ok || row.jobs == nil {
		return jobType, nil
	}
	if i := slices.IndexFunc(row.jobs, func(j string) bool { return strings.EqualFold(j, jobType) }); i >= 0 {
		return row.jobs[i], nil
	}
	if a.cfg.Jobs != nil && a.cfg.Jobs.Claims(it.ID, jobType) {
		return jobType, nil
	}
	return "", fabricerr.New(http.StatusBadRequest, "InvalidJobType", "%s: a %s has no %q job; its job types are %s",
		field, it.Type, jobType, strings.Join(row.jobs, ", "))
}
