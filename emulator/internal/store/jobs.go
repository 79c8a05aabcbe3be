package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// Job instance statuses, as Fabric's Job Scheduler names them.
const (
	JobNotStarted = "NotStarted"
	JobInProgress = "InProgress"
	JobCompleted  = "Completed"
	JobFailed     = "Failed"
	JobCancelled  = "Cancelled"
)

// JobInstance is one run of an item's job.
type JobInstance struct {
	ID           string
	WorkspaceID  string
	ItemID       string
	JobType      string
	InvokeType   string // Manual, Scheduled or EventTriggered
	Status       string
	Start, End   time.Time
	Failure      json.RawMessage // Fabric ErrorResponse, nil unless Failed
	TriggerEvent json.RawMessage // the event that fired it, nil for manual runs
	// DedupeKey, when set, is unique: a second instance with the same key is
	// ErrConflict (an event replayed after a restart starts no second job).
	DedupeKey string
	CreatedAt time.Time
}

const jobCols = `id, workspace_id, item_id, job_type, invoke_type, status, start_time, end_time, failure, trigger_event, COALESCE(dedupe_key, ''), created_at`

func fmtTime(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339Nano)
}

func parseTime(s string) time.Time {
	t, _ := time.Parse(time.RFC3339Nano, s)
	return t
}

func scanJob(sc interface{ Scan(...any) error }) (JobInstance, error) {
	var j JobInstance
	var start, end, failure, trig, created string
	err := sc.Scan(&j.ID, &j.WorkspaceID, &j.ItemID, &j.JobType, &j.InvokeType, &j.Status, &start, &end, &failure, &trig, &j.DedupeKey, &created)
	j.Start, j.End, j.CreatedAt = parseTime(start), parseTime(end), parseTime(created)
	if failure != "" {
		j.Failure = json.RawMessage(failure)
	}
	if trig != "" {
		j.TriggerEvent = json.RawMessage(trig)
	}
	return j, err
}

// CreateJob inserts j; a DedupeKey already used is ErrConflict.
func (s *Store) CreateJob(ctx context.Context, j JobInstance) error {
	var dedupe any
	if j.DedupeKey != "" {
		dedupe = j.DedupeKey
	}
	_, err := s.db.ExecContext(ctx, `INSERT INTO job_instances(id, workspace_id, item_id, job_type, invoke_type, status, start_time, end_time, failure, trigger_event, dedupe_key, created_at)
		VALUES(?,?,?,?,?,?,?,?,?,?,?,?)`,
		j.ID, j.WorkspaceID, j.ItemID, j.JobType, j.InvokeType, j.Status, fmtTime(j.Start), fmtTime(j.End), string(j.Failure), string(j.TriggerEvent), dedupe, fmtTime(j.CreatedAt))
	if isUnique(err) {
		return ErrConflict
	} else if err != nil {
		return fmt.Errorf("insert job instance: %w", err)
	}
	return nil
}

// UpdateJob stores j's status, times and failure, unless the stored status
// is already final (Completed, Failed, Cancelled): then it is ErrConflict
// and nothing changes, so a late handler cannot overwrite a cancel.
func (s *Store) UpdateJob(ctx context.Context, j JobInstance) error {
	res, err := s.db.ExecContext(ctx, `UPDATE job_instances SET status = ?, start_time = ?, end_time = ?, failure = ?
		WHERE id = ? AND status IN ('NotStarted', 'InProgress')`,
		j.Status, fmtTime(j.Start), fmtTime(j.End), string(j.Failure), j.ID)
	if err != nil {
		return fmt.Errorf("update job instance: %w", err)
	}
	if err := affected(res); err != nil {
		if _, gerr := s.GetJob(ctx, j.ID); gerr != nil {
			return gerr
		}
		return ErrConflict
	}
	return nil
}

// GetJob returns the job instance with id, or ErrNotFound.
func (s *Store) GetJob(ctx context.Context, id string) (JobInstance, error) {
	j, err := scanJob(s.db.QueryRowContext(ctx, `SELECT `+jobCols+` FROM job_instances WHERE id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return j, ErrNotFound
	}
	return j, err
}

// ListJobs returns a page of an item's job instances, oldest first.
func (s *Store) ListJobs(ctx context.Context, itemID string, p Page) ([]JobInstance, int64, error) {
	tail, args := p.clause()
	rows, err := s.db.QueryContext(ctx, `SELECT seq, `+jobCols+` FROM job_instances WHERE item_id = ?`+tail, append([]any{itemID}, args...)...)
	if err != nil {
		return nil, 0, fmt.Errorf("list job instances: %w", err)
	}
	defer rows.Close()
	var out []JobInstance
	var seqs []int64
	for rows.Next() {
		var seq int64
		j, err := scanJob(scanFunc(func(dest ...any) error { return rows.Scan(append([]any{&seq}, dest...)...) }))
		if err != nil {
			return nil, 0, fmt.Errorf("list job instances: %w", err)
		}
		out, seqs = append(out, j), append(seqs, seq)
	}
	if err := rows.Err(); err != nil {
		return nil, 0, fmt.Errorf("list job instances: %w", err)
	}
	out, next := trim(out, seqs, p)
	return out, next, nil
}

// UnfinishedJobs returns instances still NotStarted or InProgress (a restart
// finds those a previous process left behind).
func (s *Store) UnfinishedJobs(ctx context.Context) ([]JobInstance, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT `+jobCols+` FROM job_instances WHERE status IN ('NotStarted', 'InProgress') ORDER BY seq`)
	if err != nil {
		return nil, fmt.Errorf("list unfinished jobs: %w", err)
	}
	defer rows.Close()
	var out []JobInstance
	for rows.Next() {
		j, err := scanJob(rows)
		if err != nil {
			return nil, fmt.Errorf("list unfinished jobs: %w", err)
		}
		out = append(out, j)
	}
	return out, rows.Err()
}

type scanFunc func(dest ...any) error

func (f scanFunc) Scan(dest ...any) error { return f(dest...) }
