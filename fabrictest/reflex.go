package fabrictest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/fabrictest/fabrictest/emulator"
)

// ------------------------------------------------------------------ items

// Item is any Fabric item of a workspace, such as the Notebook or
// DataPipeline a Reflex trigger starts jobs of. Jobs of an item run through
// Fabric's Job Scheduler API; the emulator cannot run a notebook, so a Go
// handler registered with HandleJobs does the work.
type Item struct {
	// ID is the item id (a GUID).
	ID string
	// WorkspaceID is the workspace the item lives in.
	WorkspaceID string
	// Type is the item type, such as Notebook.
	Type string
	// Name is the display name.
	Name string

	env *Env
}

// Item creates an item of type typ (Notebook, DataPipeline, …) named name
// through the generic items route and fails the test if it cannot.
//
//	nb := ws.Item("Notebook", "on-order")
//	nb.HandleJobs("RunNotebook", func(ctx context.Context, j emulator.Job) error { … })
func (w Workspace) Item(typ, name string) Item {
	w.env.t.Helper()
	it, err := w.TryItem(typ, name)
	if err != nil {
		w.env.t.Fatalf("fabrictest: create %s %q in workspace %s: %v", typ, name, w.ID, err)
	}
	return it
}

// TryItem is Item that returns the error instead of failing the test.
func (w Workspace) TryItem(typ, name string) (Item, error) {
	var out itemJSON
	if _, err := w.env.do(http.MethodPost, w.path()+"/items", nil, map[string]any{"displayName": name, "type": typ}, 0, &out); err != nil {
		return Item{}, err
	}
	return Item{ID: out.ID, WorkspaceID: out.WorkspaceID, Type: out.Type, Name: out.DisplayName, env: w.env}, nil
}

// ItemRef returns a handle on the item id of the workspace without checking
// that it exists, such as one the code under test created.
func (w Workspace) ItemRef(id string) Item { return Item{ID: id, WorkspaceID: w.ID, env: w.env} }

// Item returns the Eventstream as a generic item.
func (es Eventstream) Item() Item {
	return Item{ID: es.ID, WorkspaceID: es.WorkspaceID, Type: "Eventstream", Name: es.Name, env: es.env}
}

// Env returns the environment view the item's helpers use.
func (it Item) Env() *Env { return it.env }

// As returns the handle acting as principal (see Env.As).
func (it Item) As(principal string) Item { it.env = it.env.As(principal); return it }

// WithT returns the handle reporting failures to t (see Env.WithT).
func (it Item) WithT(t testing.TB) Item { it.env = it.env.WithT(t); return it }

// WithContext returns the handle bounded by ctx (see Env.WithContext).
func (it Item) WithContext(ctx context.Context) Item { it.env = it.env.WithContext(ctx); return it }

func (it Item) jobsPath() string {
	return "/v1/workspaces/" + url.PathEscape(it.WorkspaceID) + "/items/" + url.PathEscape(it.ID) + "/jobs"
}

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
// it.
type JobInstance struct {
	// ID is the instance id.
	ID string `json:"id"`
	// ItemID is the item whose job it is.
	ItemID string `json:"itemId"`
	// JobType is the job type, such as RunNotebook.
	JobType string `json:"jobType"`
	// InvokeType is Manual, Scheduled or EventTriggered (a Reflex trigger).
	InvokeType string `json:"invokeType"`
	// Status is NotStarted, InProgress, Completed, Failed or Cancelled.
	Status string `json:"status"`
	// RootActivityID traces the run.
	RootActivityID string `json:"rootActivityId"`
	// StartTimeUtc and EndTimeUtc are zero until the instance starts and
	// ends.
	StartTimeUtc time.Time `json:"-"`
	EndTimeUtc   time.Time `json:"-"`
	// FailureReason says why a Failed instance failed (the handler's error
	// is its Message), nil otherwise.
	FailureReason *JobFailure `json:"failureReason"`
	// TriggerEvent is the event that fired an EventTriggered instance, nil
	// for other runs.
	TriggerEvent *TriggerEvent `json:"triggerEvent,omitempty"`
}

// JobFailure is a job instance's failureReason.
type JobFailure struct {
	// ErrorCode is JobFailed for a handler's error, NoJobRunner when nothing
	// runs the job, JobInterrupted after a restart.
	ErrorCode string `json:"errorCode"`
	// Message is the handler's error text, or the emulator's explanation.
	Message string `json:"message"`
}

// TriggerEvent is the Eventstream event that fired a job, as a Reflex
// destination hands it on: the Kafka record's key and value as text.
type TriggerEvent struct {
	// Key and Value are the record's key and value.
	Key   string `json:"Key"`
	Value string `json:"Value"`
	// EventType is Microsoft.Fabric.Eventstream.EventReceived.
	EventType string `json:"EventType"`
	// Source places the event: its Eventstream, partition and offset (-1 for
	// a row a window made).
	Source struct {
		ItemID    string `json:"itemId"`
		Partition int32  `json:"partition"`
		Offset    int64  `json:"offset"`
	} `json:"Source"`
}

// DecodeValue unmarshals the event's JSON value into v.
func (e TriggerEvent) DecodeValue(v any) error {
	if err := json.Unmarshal([]byte(e.Value), v); err != nil {
		return fmt.Errorf("trigger event p%d@%d: value is not the JSON wanted: %w", e.Source.Partition, e.Source.Offset, err)
	}
	return nil
}

// UnmarshalJSON reads the API's rendering (times in Fabric's
// "2006-01-02T15:04:05.0000000" UTC form, or null).
func (j *JobInstance) UnmarshalJSON(b []byte) error {
	type plain JobInstance
	var raw struct {
		plain
		Start *string `json:"startTimeUtc"`
		End   *string `json:"endTimeUtc"`
	}
	if err := json.Unmarshal(b, &raw); err != nil {
		return err
	}
	*j = JobInstance(raw.plain)
	var err error
	if j.StartTimeUtc, err = fabricTime(raw.Start); err != nil {
		return fmt.Errorf("job instance %s: startTimeUtc: %w", j.ID, err)
	}
	if j.EndTimeUtc, err = fabricTime(raw.End); err != nil {
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
		var page struct {
			Value             []JobInstance `json:"value"`
			ContinuationToken string        `json:"continuationToken"`
		}
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

// JobInstancesFunc returns TryJobInstances as a function for Eventually.
func (it Item) JobInstancesFunc() func() (JobInstances, error) { return it.TryJobInstances }

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

// ------------------------------------------------------------------ Reflex

// Reflex is a Fabric Activator (Reflex) item: its triggers start a job of an
// action item for every event an Eventstream delivers to it (BindReflex)
// that matches their condition.
type Reflex struct {
	// ID is the item id (a GUID).
	ID string
	// WorkspaceID is the workspace the item lives in.
	WorkspaceID string
	// Name is the display name.
	Name string

	env *Env
}

// Reflex creates a Reflex named name in the workspace and fails the test if
// it cannot.
//
//	rx := ws.Reflex("alerts")
//	rx.Trigger("every order", es, nb, "RunNotebook")
//	es.BindReflex(rx)
func (w Workspace) Reflex(name string) Reflex {
	w.env.t.Helper()
	r, err := w.TryReflex(name)
	if err != nil {
		w.env.t.Fatalf("fabrictest: create reflex %q in workspace %s: %v", name, w.ID, err)
	}
	return r
}

// TryReflex is Reflex that returns the error instead of failing the test.
func (w Workspace) TryReflex(name string) (Reflex, error) {
	var out itemJSON
	if _, err := w.env.do(http.MethodPost, w.path()+"/reflexes", nil, map[string]any{"displayName": name}, 0, &out); err != nil {
		return Reflex{}, err
	}
	return Reflex{ID: out.ID, WorkspaceID: out.WorkspaceID, Name: out.DisplayName, env: w.env}, nil
}

// Env returns the environment view the Reflex's helpers use.
func (r Reflex) Env() *Env { return r.env }

// As returns the handle acting as principal (see Env.As).
func (r Reflex) As(principal string) Reflex { r.env = r.env.As(principal); return r }

// WithT returns the handle reporting failures to t (see Env.WithT).
func (r Reflex) WithT(t testing.TB) Reflex { r.env = r.env.WithT(t); return r }

// WithContext returns the handle bounded by ctx (see Env.WithContext).
func (r Reflex) WithContext(ctx context.Context) Reflex { r.env = r.env.WithContext(ctx); return r }

// Item returns the Reflex as a generic item.
func (r Reflex) Item() Item {
	return Item{ID: r.ID, WorkspaceID: r.WorkspaceID, Type: "Reflex", Name: r.Name, env: r.env}
}

func (r Reflex) triggersPath() string {
	return "/v1/workspaces/" + url.PathEscape(r.WorkspaceID) + "/reflexes/" + url.PathEscape(r.ID) + "/triggers"
}

// EventReceived is the event type of a trigger on an Eventstream: an event
// reached the Reflex destination.
const EventReceived = "Microsoft.Fabric.Eventstream.EventReceived"

// Trigger is an Activator rule of a Reflex.
type Trigger struct {
	// ID is the trigger id.
	ID string `json:"id"`
	// DisplayName is the rule's name.
	DisplayName string `json:"displayName"`
	// Enabled is false for a rule that fires nothing.
	Enabled bool `json:"enabled"`
	// EventType is EventReceived.
	EventType string `json:"eventType"`
	// Source is the Eventstream whose events the rule watches.
	Source struct {
		ItemID string `json:"itemId"`
	} `json:"source"`
	// Condition, when set, is a Filter condition each event must meet
	// ({"field": "temp", "op": "gt", "value": 30}, and/or/not).
	Condition json.RawMessage `json:"condition,omitempty"`
	// Action is the job the rule starts per event.
	Action TriggerAction `json:"action"`

	reflex Reflex
}

// String describes the trigger on one line.
func (t Trigger) String() string {
	s := fmt.Sprintf("trigger %s %q: events of %s start %s jobs of item %s", t.ID, t.DisplayName, t.Source.ItemID, t.Action.JobType, t.Action.ItemID)
	if len(t.Condition) > 0 {
		s += " when " + string(t.Condition)
	}
	if !t.Enabled {
		s += " (disabled)"
	}
	return s
}

// GomegaString makes gomega print the trigger on one line.
func (t Trigger) GomegaString() string { return t.String() }

// TriggerAction is the job a trigger starts.
type TriggerAction struct {
	// WorkspaceID and ItemID name the item whose job runs.
	WorkspaceID string `json:"workspaceId"`
	ItemID      string `json:"itemId"`
	// JobType is the job type, such as RunNotebook.
	JobType string `json:"jobType"`
}

// TriggerOption shapes a trigger made by Reflex.Trigger.
type TriggerOption func(body map[string]any) error

// When sets the condition an event must meet to fire the trigger: a JSON
// string, []byte or json.RawMessage, a pipeline.Condition, or any value that
// encodes to a Filter condition such as
// map[string]any{"field": "temp", "op": "gte", "value": 30}.
func When(condition any) TriggerOption {
	return func(body map[string]any) error {
		raw, err := rawJSON(condition, "condition")
		if err != nil {
			return err
		}
		body["condition"] = raw
		return nil
	}
}

// Disabled creates the trigger disabled.
func Disabled() TriggerOption {
	return func(body map[string]any) error { body["enabled"] = false; return nil }
}

// Trigger adds a rule to the Reflex: every event of source that reaches the
// Reflex (bind it with source.BindReflex) and meets the options' condition
// starts one jobType job of action, with the event as the instance's
// TriggerEvent. It fails the test unless the emulator answers 2xx.
func (r Reflex) Trigger(name string, source Eventstream, action Item, jobType string, opts ...TriggerOption) Trigger {
	r.env.t.Helper()
	t, err := r.TryTrigger(name, source, action, jobType, opts...)
	if err != nil {
		r.env.t.Fatalf("fabrictest: create trigger %q on reflex %s: %v", name, r.ID, err)
	}
	return t
}

// TryTrigger is Trigger that returns the error (an *APIError, such as 400
// InvalidJobType) instead of failing the test.
func (r Reflex) TryTrigger(name string, source Eventstream, action Item, jobType string, opts ...TriggerOption) (Trigger, error) {
	body := map[string]any{
		"displayName": name, "eventType": EventReceived,
		"source": map[string]any{"itemId": source.ID},
		"action": map[string]any{"workspaceId": action.WorkspaceID, "itemId": action.ID, "jobType": jobType},
	}
	for _, o := range opts {
		if err := o(body); err != nil {
			return Trigger{}, fmt.Errorf("trigger %q: %w", name, err)
		}
	}
	var t Trigger
	if _, err := r.env.do(http.MethodPost, r.triggersPath(), nil, body, 0, &t); err != nil {
		return Trigger{}, err
	}
	t.reflex = r
	return t, nil
}

// Triggers lists the Reflex's triggers and fails the test unless the
// emulator answers 2xx.
func (r Reflex) Triggers() []Trigger {
	r.env.t.Helper()
	ts, err := r.TryTriggers()
	if err != nil {
		r.env.t.Fatalf("fabrictest: list triggers of reflex %s: %v", r.ID, err)
	}
	return ts
}

// TryTriggers is Triggers that returns the error instead of failing the test.
func (r Reflex) TryTriggers() ([]Trigger, error) {
	var out struct {
		Value []Trigger `json:"value"`
	}
	if _, err := r.env.do(http.MethodGet, r.triggersPath(), nil, nil, 0, &out); err != nil {
		return nil, err
	}
	for i := range out.Value {
		out.Value[i].reflex = r
	}
	return out.Value, nil
}

// SetEnabled enables or disables the trigger and fails the test unless the
// emulator answers 2xx.
func (t Trigger) SetEnabled(on bool) Trigger {
	t.reflex.env.t.Helper()
	n, err := t.TrySetEnabled(on)
	if err != nil {
		t.reflex.env.t.Fatalf("fabrictest: set trigger %s enabled=%v: %v", t.ID, on, err)
	}
	return n
}

// TrySetEnabled is SetEnabled that returns the error instead of failing the
// test.
func (t Trigger) TrySetEnabled(on bool) (Trigger, error) {
	if t.reflex.env == nil {
		return t, errors.New("trigger handle has no reflex: get it from Reflex.Trigger or Triggers")
	}
	var n Trigger
	if _, err := t.reflex.env.do(http.MethodPatch, t.reflex.triggersPath()+"/"+url.PathEscape(t.ID), nil, map[string]any{"enabled": on}, 0, &n); err != nil {
		return t, err
	}
	n.reflex = t.reflex
	return n, nil
}

// Delete deletes the trigger and fails the test unless the emulator answers
// 2xx.
func (t Trigger) Delete() {
	t.reflex.env.t.Helper()
	if err := t.TryDelete(); err != nil {
		t.reflex.env.t.Fatalf("fabrictest: delete trigger %s: %v", t.ID, err)
	}
}

// TryDelete is Delete that returns the error instead of failing the test.
func (t Trigger) TryDelete() error {
	if t.reflex.env == nil {
		return errors.New("trigger handle has no reflex: get it from Reflex.Trigger or Triggers")
	}
	_, err := t.reflex.env.do(http.MethodDelete, t.reflex.triggersPath()+"/"+url.PathEscape(t.ID), nil, nil, 0, nil)
	return err
}

// BindReflex binds the Eventstream to the Reflex: each event (after the
// operators) fires the Reflex's enabled triggers whose source is this
// Eventstream and whose condition it meets. It fails the test unless the
// emulator answers 2xx. The produce answers once every job is started (not
// finished): wait for statuses with Eventually.
func (es Eventstream) BindReflex(r Reflex) Destination {
	es.env.t.Helper()
	d, err := es.TryBindReflex(r)
	if err != nil {
		es.env.t.Fatalf("fabrictest: bind eventstream %s to reflex %s: %v", es.ID, r.ID, err)
	}
	return d
}

// TryBindReflex is BindReflex that returns the error instead of failing the
// test.
func (es Eventstream) TryBindReflex(r Reflex) (Destination, error) {
	return es.bind(map[string]any{"type": "Reflex", "itemId": r.ID}, r.WorkspaceID)
}

// rawJSON renders v as JSON: a string, []byte or json.RawMessage as is
// (checked), anything else encoded.
func rawJSON(v any, what string) (json.RawMessage, error) {
	var b []byte
	switch x := v.(type) {
	case nil:
		return nil, fmt.Errorf("%s: nil", what)
	case string:
		b = []byte(x)
	case []byte:
		b = x
	case json.RawMessage:
		b = x
	default:
		var err error
		if b, err = json.Marshal(x); err != nil {
			return nil, fmt.Errorf("%s: %w", what, err)
		}
		return b, nil
	}
	if !json.Valid(b) {
		return nil, fmt.Errorf("%s: not valid JSON: %s", what, snippet(b))
	}
	return json.RawMessage(b), nil
}
