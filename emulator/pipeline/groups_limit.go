package pipeline

import "sync"

// MaxGroups bounds the state of a GroupBy (tumbling, hopping and snapshot
// windows: the groups of every open window together) and of an Aggregate
// (its partitions, all aggregates together). A row that would start one more group
// is dropped from that window (GroupBy) or gets a null aggregate and is
// not remembered (Aggregate), and counts in Stats.GroupsOverLimit; the
// groups already held go on. 100,000 groups of a few aggregates hold tens
// of MiB. Microsoft documents no such bound for Eventstream's operators;
// the emulator's protects the process from an unbounded key (a GroupBy on
// a unique id).
const MaxGroups = 100_000

// groupLimits holds the bounds LimitGroups set, by the pipeline's stats
// (which every stage of the pipeline shares).
var groupLimits sync.Map // *Stats → int

// groupLimit is the bound in force: MaxGroups unless LimitGroups set one.
func (s *Stats) groupLimit() int {
	if n, ok := groupLimits.Load(s); ok {
		return n.(int)
	}
	return MaxGroups
}

// LimitGroups sets a lower bound than MaxGroups on groups of p's GroupBy
// and Aggregate stages (n <= 0 or above MaxGroups: MaxGroups), for tests
// that reach it with a few rows. It is kept for p's life.
func (p *Pipeline) LimitGroups(n int) {
	if n <= 0 || n > MaxGroups {
		groupLimits.Delete(&p.stats)
		return
	}
	groupLimits.Store(&p.stats, n)
}

// heldGroups counts the groups of every open window.
func (s *groupByStage) heldGroups() int {
	n := 0
	for _, w := range s.windows {
		n += len(w.groups)
	}
	return n
}
