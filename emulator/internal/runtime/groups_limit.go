package runtime

import (
	"fmt"

	"github.com/fabrictest/fabrictest/emulator/internal/insights"
	"github.com/fabrictest/fabrictest/emulator/pipeline"
)

// groupsOverLimit is how many rows the destination's operators could not
// hold so far because their state reached pipeline.MaxGroups groups.
func (p *processor) groupsOverLimit() int64 {
	if p.pipe == nil {
		return 0
	}
	return p.pipe.Stats().GroupsOverLimit
}

// countGroupsOverLimit counts, as runtime errors and GroupsOverLimit, the
// rows a write could not hold in the operators' state, and logs it once
// per write.
func (s *countedSink) countGroupsOverLimit(before int64) {
	n := s.processor.groupsOverLimit() - before
	if n <= 0 {
		return
	}
	s.node.Add(insights.RuntimeErrors, n)
	s.node.Add(insights.GroupsOverLimit, n)
	s.node.Log(s.now(), insights.LevelError, fmt.Sprintf(
		"%d rows were dropped: the GroupBy or Aggregate operator holds %d groups, its limit; rows of new keys are dropped until windows close", n, pipeline.MaxGroups),
		"rows", n, "limit", pipeline.MaxGroups)
}
