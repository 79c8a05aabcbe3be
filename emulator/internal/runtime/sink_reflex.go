package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/fabrictest/fabrictest/emulator/internal/eventstream"
	"github.com/fabrictest/fabrictest/emulator/internal/jobs"
	"github.com/fabrictest/fabrictest/emulator/internal/store"
)

// EventReceived is the only trigger event type: an event reached the Reflex
// destination of an Eventstream.
const EventReceived = "Microsoft.Fabric.Eventstream.EventReceived"

// Trigger is an Activator rule as the API accepts and renders it.
type Trigger struct {
	ID          string          `json:"id"`
	DisplayName string          `json:"displayName"`
	Enabled     *bool           `json:"enabled"`
	EventType   string          `json:"eventType"`
	Source      TriggerSource   `json:"source"`
	Condition   json.RawMessage `json:"condition,omitempty"`
	Action      TriggerAction   `json:"action"`
}

// TriggerSource is the Eventstream a trigger watches.
type TriggerSource struct {
	ItemID string `json:"itemId"`
}

// TriggerAction is the job a trigger starts.
type TriggerAction struct {
	WorkspaceID string `json:"workspaceId"`
	ItemID      string `json:"itemId"`
	JobType     string `json:"jobType"`
}

// IsEnabled reports whether t is on (the default).
func (t Trigger) IsEnabled() bool { return t.Enabled == nil || *t.Enabled }

// DecodeTrigger reads a stored trigger.
func DecodeTrigger(st store.Trigger) Trigger {
	var t Trigger
	_ = json.Unmarshal(st.Body, &t)
	t.ID = st.ID
	return t
}

// reflexWriter starts a job per row and matching trigger. Each start is
// keyed by the event's position (or, for rows made by a window, by the
// batch's seq and the row's index), so a replay starts nothing twice.
type reflexWriter struct {
	rt   *Runtime
	dest store.Destination
}

func (w reflexWriter) write(ctx context.Context, seq int64, out []outRow) error {
	stored, err := w.rt.cfg.Store.ListTriggers(ctx, w.dest.ItemID)
	if err != nil {
		return err
	}
	type armed struct {
		t    Trigger
		cond Condition
	}
	var live []armed
	for _, st := range stored {
		t := DecodeTrigger(st)
		if !t.IsEnabled() || t.EventType != EventReceived || t.Source.ItemID != w.dest.EventstreamID {
			continue
		}
		cond, err := ParseCondition(t.Condition)
		if err != nil {
			return fmt.Errorf("trigger %s: %w", t.ID, err)
		}
		if act, err := w.rt.cfg.Store.GetItem(ctx, t.Action.ItemID); errors.Is(err, store.ErrNotFound) || (err == nil && act.WorkspaceID != t.Action.WorkspaceID) {
			return fmt.Errorf("trigger %s (%s) starts %s jobs of item %s, which no longer exists", t.ID, t.DisplayName, t.Action.JobType, t.Action.ItemID)
		} else if err != nil {
			return err
		}
		live = append(live, armed{t, cond})
	}
	var same sameRecord
	for i, r := range out {
		at := fmt.Sprintf("%d/%d", r.Partition, r.Offset)
		if r.Offset < 0 {
			at = fmt.Sprintf("seq-%d/%d", seq, i)
		} else if k := same.next(r); k > 0 {
			at = fmt.Sprintf("%s#%d", at, k) // a later row of a CSV or Avro event's rows
		}
		row := r.row()
		for _, l := range live {
			if l.cond != nil && !l.cond(row) {
				continue
			}
			event, _ := json.Marshal(map[string]any{
				"Key": string(r.Key), "Value": string(r.Value), "EventType": EventReceived,
				"Source": map[string]any{"itemId": w.dest.EventstreamID, "partition": r.Partition, "offset": r.Offset},
			})
			_, err := w.rt.cfg.Jobs.Submit(ctx, store.JobInstance{
				WorkspaceID: l.t.Action.WorkspaceID, ItemID: l.t.Action.ItemID, JobType: l.t.Action.JobType, InvokeType: "EventTriggered",
				TriggerEvent: event, DedupeKey: w.dest.ID + "/" + at + "/" + l.t.ID,
			})
			if err != nil && !errors.Is(err, jobs.ErrDuplicate) {
				return err
			}
		}
	}
	return nil
}

func init() {
	writers["Reflex"] = func(rt *Runtime, d store.Destination, _ eventstream.Spec) (rowWriter, error) {
		return reflexWriter{rt: rt, dest: d}, nil
	}
}
