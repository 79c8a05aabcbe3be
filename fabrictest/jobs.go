package fabrictest

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/fabrictest/fabrictest/emulator"

	"github.com/fabrictest/fabrictest/emulator/wire"
)

// ------------------------------------------------------------------ jobs

// Job instance statuses, as Fabric's Job Scheduler names them: an instance
// goes NotStarted → InProgress → Completed, Failed or Cancelled.
const (
	JobNotStarted = "NotStarted"
	JobInProgress = "InProgress"
	JobCompleted  = "Completed"
	JobFailed     = "Failed"
	JobCancelled  = "Cancelled"
)

// JobInstance is one run of an item's job, as the Job Scheduler API renders
// it (decoded from wire.JobInstance, with its times parsed).
type JobInstance struct {
	// ID is the instance id.
	ID string
	// ItemID is the item whose job it is.
	ItemID string
	// JobType is the job type, such as RunNotebook.
	JobType string
	// InvokeType is Manual, Scheduled or EventTriggered (a Reflex trigger).
	InvokeType string
	// Status is NotStarted, InProgress, Completed, Failed or Cancelled.
	Status string
	// RootActivityID traces the run.
	RootActivityID string
	// StartTimeUtc and EndTimeUtc are zero until the instance starts and
	// ends.
	StartTimeUtc time.Time
	EndTimeUtc   time.Time
	// FailureReason says why a Failed instance failed (the handler's error
	// is its Message), nil otherwise.
	FailureReason *JobFailure
	// TriggerEvent is the event that fired an EventTriggered instance, nil
	// for other runs.
	TriggerEvent *TriggerEvent
}

// JobFailure is a job instance's failureReason: ErrorCode is JobFailed for
// a handler's error, NoJobRunner when nothing runs the job, JobInterrupted
// after a restart; Message is the handler's error text, or the emulator's
// explanation.
type JobFailure = wire.JobFailure

// TriggerEvent is the Eventstream event that fired a job, as a Reflex
// destination hands it on: the Kafka record's key and value as text, its
// EventType (Microsoft.Fabric.Eventstream.EventReceived) and Source (its
// Eventstream, partition and offset, -1 for a row a window made).
type TriggerEvent wire.TriggerEvent

// DecodeValue unmarshals the event's JSON value into v.
func (e TriggerEvent) DecodeValue(v any) error {
	if err := json.Unmarshal([]byte(e.Value), v); err != nil {
		return fmt.Errorf("trigger event p%d@%d: value is not the JSON wanted: %w", e.Source.Partition, e.Source.Offset, err)
	}
	return nil
}

// UnmarshalJSON reads the API's rendering, a wire.JobInstance (times in
// Fabric's "2006-01-02T15:04:05.0000000" UTC form, or absent).
func (j *JobInstance) UnmarshalJSON(b []byte) error {
	var w wire.JobInstance
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	*j = JobInstance{ID: w.ID, ItemID: w.ItemID, JobType: w.JobType, InvokeType: w.InvokeType, Status: w.Status,
		RootActivityID: w.RootActivityID, FailureReason: w.FailureReason, TriggerEvent: (*TriggerEvent)(w.TriggerEvent)}
	var err error
	if j.StartTimeUtc, err = fabricTime(&w.StartTimeUtc); err != nil {
		return fmt.Errorf("job instance %s: startTimeUtc: %w", j.ID, err)
	}
	if j.EndTimeUtc, err = fabricTime(&w.EndTimeUtc); err != nil {
		return fmt.Errorf("job instance %s: endTimeUtc: %w", j.ID, err)
	}
	return nil
}

func fabricTime(s *string) (time.Time, error) {
	if s == nil || *s == "" {
		return time.Time{}, nil
	}
	for _, layout := range []string{"2006-01-02T15:04:05.9999999", time.RFC3339Nano} {
		if t, err := time.ParseInLocation(layout, *s, time.UTC); err == nil {
			return t, nil
		}
	}
	return time.Time{}, fmt.Errorf("%q is not a Fabric UTC time", *s)
}

// Done reports whether the instance reached a final status.
func (j JobInstance) Done() bool {
	return j.Status == JobCompleted || j.Status == JobFailed || j.Status == JobCancelled
}

// String renders the instance on one line for failure messages, such as
// `3f2…  RunNotebook EventTriggered Failed (JobFailed: disk full) event p0@4 value={"n":4}`.
func (j JobInstance) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s %s %s", j.ID, j.JobType, j.InvokeType, j.Status)
	if j.FailureReason != nil {
		fmt.Fprintf(&b, " (%s: %s)", j.FailureReason.ErrorCode, j.FailureReason.Message)
	}
	if e := j.TriggerEvent; e != nil {
		fmt.Fprintf(&b, " event p%d@%d", e.Source.Partition, e.Source.Offset)
		if e.Key != "" {
			b.WriteString(" key=" + showBytes([]byte(e.Key)))
		}
		b.WriteString(" value=" + showBytes([]byte(e.Value)))
	}
	return b.String()
}

// GomegaString makes gomega print the instance on one line.
func (j JobInstance) GomegaString() string { return j.String() }

// JobInstances is a list of job instances, oldest first.
type JobInstances []JobInstance

// String renders the instances one per line (at most 20, then a count).
func (js JobInstances) String() string { return summarizeJobs(js, "") }

// GomegaString makes gomega print the instances readably.
func (js JobInstances) GomegaString() string { return summarizeJobs(js, "    ") }

// WithStatus returns the instances whose status is status.
func (js JobInstances) WithStatus(status string) JobInstances {
	var out JobInstances
	for _, j := range js {
		if j.Status == status {
			out = append(out, j)
		}
	}
	return out
}

// Statuses counts the instances per status.
func (js JobInstances) Statuses() map[string]int {
	out := map[string]int{}
	for _, j := range js {
		out[j.Status]++
	}
	return out
}

func summarizeJobs(js []JobInstance, indent string) string {
	if len(js) == 0 {
		return indent + "<no job instances>"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s%d job instance(s):\n", indent, len(js))
	for i, j := range js {
		if i == maxShown {
			fmt.Fprintf(&b, "%s  … and %d more\n", indent, len(js)-maxShown)
			break
		}
		b.WriteString(indent + "  " + j.String() + "\n")
	}
	return strings.TrimRight(b.String(), "\n")
}

// JobInstances lists every job instance of the item, oldest first, through
// the Job Scheduler API (every page of GET …/items/{id}/jobs/instances), and
// fails the test unless the emulator answers 2xx.
func (it Item) JobInstances() JobInstances {
	it.env.t.Helper()
	js, err := it.TryJobInstances()
	if err != nil {
		it.env.t.Fatalf("fabrictest: list job instances of item %s: %v", it.ID, err)
	}
	return js
}

// TryJobInstances is JobInstances that returns the error instead of failing
// the test. As a method value it drops into gomega's Eventually:
//
//	Eventually(nb.TryJobInstances).Should(fabrictest.HaveJobInstances(3))
func (it Item) TryJobInstances() (JobInstances, error) {
	out := JobInstances{}
	q := url.Values{}
	for {
		var page wire.List[JobInstance]
		if _, err := it.env.do(http.MethodGet, it.jobsPath()+"/instances", q, nil, 0, &page); err != nil {
			return nil, err
		}
		out = append(out, page.Value...)
		if page.ContinuationToken == "" {
			return out, nil
		}
		q.Set("continuationToken", page.ContinuationToken)
	}
}

// RunJob starts a job of jobType on the item on demand (POST
// …/items/{id}/jobs/{jobType}/instances, invokeType Manual) and returns the
// instance as it is right after, usually NotStarted or InProgress; it fails
// the test unless the emulator answers 2xx. Wait for the end with
// Eventually(it.JobInstanceFunc(j.ID)).Should(HaveJobStatus(JobCompleted)).
func (it Item) RunJob(jobType string) JobInstance {
	it.env.t.Helper()
	j, err := it.TryRunJob(jobType)
	if err != nil {
		it.env.t.Fatalf("fabrictest: run %s job of item %s: %v", jobType, it.ID, err)
	}
	return j
}

// TryRunJob is RunJob that returns the error (an *APIError, such as 400
// InvalidJobType) instead of failing the test.
func (it Item) TryRunJob(jobType string) (JobInstance, error) {
	r, err := it.env.do(http.MethodPost, it.jobsPath()+"/"+url.PathEscape(jobType)+"/instances", nil, nil, 0, nil)
	if err != nil {
		return JobInstance{}, err
	}
	loc := r.Header.Get("Location")
	i := strings.LastIndex(loc, "/instances/")
	if i < 0 {
		return JobInstance{}, fmt.Errorf("run %s job of item %s: answer %d has no job instance Location (%q)", jobType, it.ID, r.Status, loc)
	}
	return it.TryJobInstance(loc[i+len("/instances/"):])
}

// JobInstance reads one job instance of the item and fails the test unless
// the emulator answers 2xx.
func (it Item) JobInstance(id string) JobInstance {
	it.env.t.Helper()
	j, err := it.TryJobInstance(id)
	if err != nil {
		it.env.t.Fatalf("fabrictest: get job instance %s of item %s: %v", id, it.ID, err)
	}
	return j
}

// TryJobInstance is JobInstance that returns the error (an *APIError, such
// as 404 JobInstanceNotFound) instead of failing the test.
func (it Item) TryJobInstance(id string) (JobInstance, error) {
	var j JobInstance
	_, err := it.env.do(http.MethodGet, it.jobsPath()+"/instances/"+url.PathEscape(id), nil, nil, 0, &j)
	return j, err
}

// JobInstanceFunc returns TryJobInstance(id) as a function for Eventually.
func (it Item) JobInstanceFunc(id string) func() (JobInstance, error) {
	return func() (JobInstance, error) { return it.TryJobInstance(id) }
}

// CancelJob cancels a job instance that has not finished and fails the test
// unless the emulator answers 2xx (400 JobAlreadyCompleted for a finished
// one).
func (it Item) CancelJob(id string) {
	it.env.t.Helper()
	if err := it.TryCancelJob(id); err != nil {
		it.env.t.Fatalf("fabrictest: cancel job instance %s of item %s: %v", id, it.ID, err)
	}
}

// TryCancelJob is CancelJob that returns the error instead of failing the
// test.
func (it Item) TryCancelJob(id string) error {
	_, err := it.env.do(http.MethodPost, it.jobsPath()+"/instances/"+url.PathEscape(id)+"/cancel", nil, nil, 0, nil)
	return err
}

// HandleJobs makes h run the item's jobs of jobType ("" for every job type).
// See Env.HandleJobs.
func (it Item) HandleJobs(jobType string, h func(ctx context.Context, j emulator.Job) error) {
	it.env.HandleJobs(it.ID, jobType, h)
}

// HandleJobs registers h to run the jobs of jobType on item itemID, the
// work the emulator cannot do itself (run a notebook, a pipeline): the
// instance is InProgress while h runs, Completed when it returns nil, and
// Failed with errorCode JobFailed and h's error as message otherwise (a
// panic too). An empty itemID or jobType matches every item or job type;
// the most specific registration wins. Without one, jobs fail with
// NoJobRunner. h runs on the emulator's goroutines: report to the test
// through channels or atomics, not t.Fatal. Its context ends when the
// instance is cancelled or the environment closes.
func (e *Env) HandleJobs(itemID, jobType string, h func(ctx context.Context, j emulator.Job) error) {
	e.c.srv.HandleJobs(itemID, jobType, h)
}
