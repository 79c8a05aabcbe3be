package fabrictest

// Gomega matchers for job instances (Reflex triggers, the Job Scheduler
// API): typed on JobInstances / JobInstance, as Item.JobInstances and
// Item.JobInstance return them, and printing the instances they found.

import (
	"strings"
	"text/template"

	"github.com/onsi/gomega/gcustom"
	"github.com/onsi/gomega/types"
)

// HaveJobInstances succeeds when the actual job instances (JobInstances or
// []JobInstance, as Item.JobInstances and TryJobInstances return them)
// number exactly n. On failure it lists them, one per line with status,
// failure reason and trigger event.
//
//	Eventually(nb.TryJobInstances).Should(fabrictest.HaveJobInstances(5))
func HaveJobInstances(n int) types.GomegaMatcher {
	return gcustom.MakeMatcher(func(js []JobInstance) (bool, error) {
		return len(js) == n, nil
	}).WithPrecompiledTemplate(newTemplate(
		"Expected {{if .Failure}}{{.Data}}{{else}}anything but {{.Data}}{{end}} job instance(s), found {{len .Actual}}:\n{{jobs .Actual}}",
		jobFuncs), n)
}

// HaveJobStatus succeeds when the actual job instance (a JobInstance, as
// Item.JobInstance returns it) has status status (JobCompleted, JobFailed,
// …) and, when reason is given, a failure reason whose errorCode or message
// contains each of its texts. Over a list, use gomega's HaveEach or
// ContainElement:
//
//	Eventually(nb.JobInstanceFunc(id)).Should(fabrictest.HaveJobStatus(fabrictest.JobCompleted))
//	Expect(nb.JobInstances()).To(HaveEach(fabrictest.HaveJobStatus(fabrictest.JobCompleted)))
//	Expect(j).To(fabrictest.HaveJobStatus(fabrictest.JobFailed, "disk full"))
//
// On failure it prints the instance: status, failure reason, trigger event.
func HaveJobStatus(status string, reason ...string) types.GomegaMatcher {
	return gcustom.MakeMatcher(func(j JobInstance) (bool, error) {
		if j.Status != status {
			return false, nil
		}
		for _, r := range reason {
			if j.FailureReason == nil || !strings.Contains(string(j.FailureReason.ErrorCode)+": "+j.FailureReason.Message, r) {
				return false, nil
			}
		}
		return true, nil
	}).WithPrecompiledTemplate(newTemplate(
		`Expected job instance {{.Actual.ID}} {{if .Failure}}{{else}}not {{end}}to be {{.Data.Status}}{{if .Data.Reason}} with a failure reason containing {{range $i, $r := .Data.Reason}}{{if $i}} and {{end}}{{printf "%q" $r}}{{end}}{{end}}, but it is {{.Actual.Status}}{{with .Actual.FailureReason}} ({{.ErrorCode}}: {{.Message}}){{else}} (no failure reason){{end}}:
    {{.Actual}}`, jobFuncs), struct {
		Status string
		Reason []string
	}{status, reason})
}

var jobFuncs = template.FuncMap{
	"jobs": func(v any) string {
		switch js := v.(type) {
		case JobInstances:
			return summarizeJobs(js, "    ")
		case []JobInstance:
			return summarizeJobs(js, "    ")
		}
		return "    <not job instances>"
	},
}
