// Package jobs runs Fabric job instances: manual runs through the Job
// Scheduler API and the runs an Activator (Reflex) trigger starts per event.
//
// The emulator cannot run a notebook or a pipeline, so someone else does the
// work: a Go Handler registered for an item and job type (tests, through
// fabrictest), or a webhook the standalone binary posts each job to. A job
// that nobody can run fails with errorCode NoJobRunner; a status never
// claims work that did not happen.
package jobs

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"github.com/fabrictest/fabrictest/emulator/internal/store"
	"github.com/google/uuid"
)

// Job is what a handler or webhook receives.
type Job struct {
	ID           string          `json:"id"`
	WorkspaceID  string          `json:"workspaceId"`
	ItemID       string          `json:"itemId"`
	JobType      string          `json:"jobType"`
	InvokeType   string          `json:"invokeType"`
	TriggerEvent json.RawMessage `json:"triggerEvent,omitempty"`
}

// Handler runs a job; an error fails the instance with the error as reason.
type Handler func(ctx context.Context, j Job) error

// Runner starts job instances and records their lifecycle in the store.
type Runner struct {
	st      *store.Store
	webhook string
	client  *http.Client
	log     *slog.Logger
	now     func() time.Time

	mu       sync.Mutex
	handlers map[[2]string]Handler // (itemID or "", jobType or "")
	running  map[string]context.CancelFunc
	wg       sync.WaitGroup
	closed   bool
}

// NewRunner returns a Runner; webhook, when set, receives every job that no
// Handler claims as a JSON POST (2xx completes it, anything else fails it).
func NewRunner(st *store.Store, webhook string, log *slog.Logger) *Runner {
	return &Runner{st: st, webhook: webhook, client: &http.Client{Timeout: 5 * time.Minute}, log: log, now: time.Now,
		handlers: map[[2]string]Handler{}, running: map[string]context.CancelFunc{}}
}

// Handle registers h for jobs of jobType on itemID. An empty itemID matches
// every item and an empty jobType every job type; the most specific wins.
func (r *Runner) Handle(itemID, jobType string, h Handler) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.handlers[[2]string{itemID, jobType}] = h
}

func (r *Runner) handler(itemID, jobType string) Handler {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, k := range [][2]string{{itemID, jobType}, {itemID, ""}, {"", jobType}, {"", ""}} {
		if h, ok := r.handlers[k]; ok {
			return h
		}
	}
	if r.webhook != "" {
		return r.postWebhook
	}
	return nil
}

// ErrDuplicate is returned by Submit when the instance's dedupe key was
// already used: the job was started before and is not started again.
var ErrDuplicate = errors.New("job already started for this event")

// Submit records a NotStarted instance and runs it in the background.
func (r *Runner) Submit(ctx context.Context, inst store.JobInstance) (store.JobInstance, error) {
	if inst.ID == "" {
		inst.ID = uuid.NewString()
	}
	inst.Status, inst.CreatedAt = store.JobNotStarted, r.now()
	if err := r.st.CreateJob(ctx, inst); errors.Is(err, store.ErrConflict) {
		return inst, ErrDuplicate
	} else if err != nil {
		return inst, err
	}
	r.start(inst)
	return inst, nil
}

func (r *Runner) start(inst store.JobInstance) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return // stays NotStarted; Recover runs it after a restart
	}
	ctx, cancel := context.WithCancel(context.Background())
	r.running[inst.ID] = cancel
	r.wg.Add(1)
	go func() {
		defer r.wg.Done()
		defer func() {
			r.mu.Lock()
			delete(r.running, inst.ID)
			r.mu.Unlock()
			cancel()
		}()
		r.run(ctx, inst)
	}()
}

func (r *Runner) run(ctx context.Context, inst store.JobInstance) {
	h := r.handler(inst.ItemID, inst.JobType)
	if h == nil {
		r.finish(inst, store.JobFailed, "NoJobRunner",
			fmt.Sprintf("nothing runs %s jobs of item %s in this emulator: register a handler (fabrictest) or start it with --job-webhook", inst.JobType, inst.ItemID))
		return
	}
	inst.Status, inst.Start = store.JobInProgress, r.now()
	if err := r.st.UpdateJob(ctx, inst); err != nil {
		return // cancelled before it started
	}
	job := Job{ID: inst.ID, WorkspaceID: inst.WorkspaceID, ItemID: inst.ItemID, JobType: inst.JobType, InvokeType: inst.InvokeType, TriggerEvent: inst.TriggerEvent}
	err := safeRun(ctx, h, job)
	switch {
	case ctx.Err() != nil:
		// Cancelled: Cancel already recorded the final status.
	case err != nil:
		r.finish(inst, store.JobFailed, "JobFailed", err.Error())
	default:
		r.finish(inst, store.JobCompleted, "", "")
	}
}

func safeRun(ctx context.Context, h Handler, j Job) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("handler panicked: %v", p)
		}
	}()
	return h(ctx, j)
}

func (r *Runner) finish(inst store.JobInstance, status, code, msg string) {
	inst.Status, inst.End = status, r.now()
	if inst.Start.IsZero() {
		inst.Start = inst.End
	}
	if code != "" {
		inst.Failure, _ = json.Marshal(map[string]string{"errorCode": code, "message": msg})
	}
	if err := r.st.UpdateJob(context.Background(), inst); err != nil && !errors.Is(err, store.ErrConflict) {
		r.log.Error("record job status", "job", inst.ID, "err", err)
	}
}

// Cancel cancels a NotStarted or InProgress instance; a finished one is
// store.ErrConflict.
func (r *Runner) Cancel(ctx context.Context, id string) error {
	inst, err := r.st.GetJob(ctx, id)
	if err != nil {
		return err
	}
	inst.Status, inst.End = store.JobCancelled, r.now()
	if inst.Start.IsZero() {
		inst.Start = inst.End
	}
	if err := r.st.UpdateJob(ctx, inst); err != nil {
		return err
	}
	r.mu.Lock()
	cancel := r.running[id]
	r.mu.Unlock()
	if cancel != nil {
		cancel()
	}
	return nil
}

// Recover runs the instances a previous process left NotStarted and fails
// those it left InProgress (their work cannot be known to have happened).
func (r *Runner) Recover(ctx context.Context) error {
	left, err := r.st.UnfinishedJobs(ctx)
	if err != nil {
		return err
	}
	for _, inst := range left {
		if inst.Status == store.JobInProgress {
			r.finish(inst, store.JobFailed, "JobInterrupted", "the emulator restarted while this job was running")
			continue
		}
		r.start(inst)
	}
	return nil
}

// Close cancels running jobs and waits for them.
func (r *Runner) Close() {
	r.mu.Lock()
	r.closed = true
	for _, cancel := range r.running {
		cancel()
	}
	r.mu.Unlock()
	r.wg.Wait()
}

func (r *Runner) postWebhook(ctx context.Context, j Job) error {
	body, _ := json.Marshal(j)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, r.webhook, bytes.NewReader(body))
	if err != nil {
		return fmt.Errorf("post job to webhook: %w", err)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := r.client.Do(req)
	if err != nil {
		return fmt.Errorf("post job to webhook: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		msg, _ := io.ReadAll(io.LimitReader(resp.Body, 1024))
		return fmt.Errorf("webhook answered %s: %s", resp.Status, bytes.TrimSpace(msg))
	}
	return nil
}

// Claims reports whether a Handler registered for jobType by name (on
// itemID or on every item) or for every job type of itemID would run the
// job: such job types are accepted beyond the item type's own.
func (r *Runner) Claims(itemID, jobType string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, k := range [][2]string{{itemID, jobType}, {"", jobType}, {itemID, ""}} {
		if _, ok := r.handlers[k]; ok {
			return true
		}
	}
	return false
}
