package emulator

import "github.com/fabrictest/fabrictest/emulator/internal/insights"

// SchemaEnforcementInsights returns node id's data insights on s (the
// schema-enforcement tests read DroppedFields, DataConversionErrors and
// runtime logs through it).
func SchemaEnforcementInsights(s *Server, id string) *insights.Node { return s.rt.Insights(id) }
