package portal

import (
	"bytes"
	"encoding/json"

	"github.com/fabrictest/fabrictest/emulator/wire"
)

// The API's answers, as far as the portal reads them.

// The portal reads the API's answers as the wire types; these names keep
// its pages short.
type (
	workspace      = wire.Workspace
	item           = wire.Item
	roleAssignment = wire.RoleAssignment
	node           = wire.Node
	topology       = wire.Topology
	metricsAnswer  = wire.EventstreamMetrics
	logEntry       = wire.LogEntry
	jobInstance    = wire.JobInstance
	table          = wire.Table
	connection     = wire.Connection
)

// list is the API's {"value": [...]} answer.
type list[T any] = wire.List[T]

// trigger is a Reflex trigger.
type trigger struct {
	ID          string `json:"id"`
	DisplayName string `json:"displayName"`
	Enabled     bool   `json:"enabled"`
	EventType   string `json:"eventType"`
	Source      struct {
		ItemID string `json:"itemId"`
	} `json:"source"`
	Condition json.RawMessage `json:"condition"`
	Action    struct {
		WorkspaceID string `json:"workspaceId"`
		ItemID      string `json:"itemId"`
		JobType     string `json:"jobType"`
	} `json:"action"`
}

// ConditionText is the trigger's condition (the Filter operator's
// grammar) as indented JSON, or "Every event" without one.
func (t trigger) ConditionText() string {
	if len(t.Condition) == 0 || string(t.Condition) == "null" {
		return "Every event"
	}
	var b bytes.Buffer
	if json.Indent(&b, t.Condition, "", "  ") != nil {
		return string(t.Condition)
	}
	return b.String()
}
