package fabrictest

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
)

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
