package faults

import (
	"errors"
	"math/rand/v2"
	"path"
	"strings"
	"sync"
	"time"

	"github.com/fabrictest/fabrictest/emulator/wire"
	"github.com/google/uuid"
)

// Request is what a door tells Check about one call.
type Request struct {
	Door        string // wire.FaultDoorREST, …
	Method      string // rest: the HTTP method
	Route       string // rest: the registered pattern, method included
	Path        string // rest: the request's path
	Eventstream string // the Eventstream the call reaches, when known
	Node        string // the source or stream node the call goes through, when known
	Operation   string // wire.FaultProduce or wire.FaultConsume, when it is one
	Destination string // destination: its id
}

// Hit is a fault Check decided to inject.
type Hit struct {
	Rule   string // the rule's id
	Effect wire.FaultEffect
	Req    Request
}

// Latency is how long the hit's effect waits (latency effects only).
func (h *Hit) Latency() time.Duration { return time.Duration(h.Effect.LatencyMs) * time.Millisecond }

// ErrNotFound is Delete's error for no active rule of that id.
var ErrNotFound = errors.New("no active fault rule of that id")

// rule is an active rule and its state.
type rule struct {
	wire.FaultRule
	created  time.Time
	expires  time.Time // zero: never (a count ends it)
	injected int
	rnd      *rand.Rand
}

// Set is the active rules. Its methods are safe for concurrent use; a nil
// *Set injects nothing.
type Set struct {
	now      func() time.Time
	onInject func(Hit)

	mu      sync.Mutex
	rules   []*rule
	counter *counter
}

// NewSet returns an empty set; onInject (may be nil) is told every hit,
// after it is counted.
func NewSet(onInject func(Hit)) *Set {
	return &Set{now: time.Now, onInject: onInject, counter: newCounter()}
}

// SetOnInject replaces the hook told every hit.
func (s *Set) SetOnInject(f func(Hit)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.onInject = f
}

// Add validates r and makes it active; it answers the rule as stored. A
// rule whose id is already active replaces it.
func (s *Set) Add(r wire.FaultRule) (wire.FaultRuleState, error) {
	if err := Validate(&r); err != nil {
		return wire.FaultRuleState{}, err
	}
	if r.ID == "" {
		r.ID = uuid.NewString()
	}
	now := s.now()
	nr := &rule{FaultRule: r, created: now, rnd: rand.New(rand.NewPCG(uint64(r.Seed), uint64(r.Seed)^0x9e3779b97f4a7c15))}
	switch {
	case r.DurationSeconds > 0:
		nr.expires = now.Add(time.Duration(r.DurationSeconds * float64(time.Second)))
	case r.Count == 0:
		nr.expires = now.Add(wire.DefaultFaultDuration)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.rules = append(s.deleteLocked(r.ID), nr)
	return nr.state(), nil
}

// List answers the active rules, oldest first.
func (s *Set) List() []wire.FaultRuleState {
	if s == nil {
		return []wire.FaultRuleState{}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.expireLocked(s.now())
	out := make([]wire.FaultRuleState, 0, len(s.rules))
	for _, r := range s.rules {
		out = append(out, r.state())
	}
	return out
}

// Delete ends rule id.
func (s *Set) Delete(id string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := len(s.rules)
	s.rules = s.deleteLocked(id)
	if len(s.rules) == n {
		return ErrNotFound
	}
	return nil
}

// Clear ends every rule and answers how many were active.
func (s *Set) Clear() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.expireLocked(s.now())
	n := len(s.rules)
	s.rules = nil
	return n
}

func (s *Set) deleteLocked(id string) []*rule {
	out := s.rules[:0:0]
	for _, r := range s.rules {
		if r.ID != id {
			out = append(out, r)
		}
	}
	return out
}

// expireLocked drops the rules whose duration passed or count ran out.
func (s *Set) expireLocked(now time.Time) {
	keep := s.rules[:0]
	for _, r := range s.rules {
		if !r.ended(now) {
			keep = append(keep, r)
		}
	}
	clear(s.rules[len(keep):])
	s.rules = keep
}

// Check answers the fault to inject into req, or nil.
func (s *Set) Check(req Request) *Hit {
	if s == nil {
		return nil
	}
	s.mu.Lock()
	if len(s.rules) == 0 {
		s.mu.Unlock()
		return nil
	}
	now := s.now()
	s.expireLocked(now)
	var hit *Hit
	for _, r := range s.rules {
		if !r.matches(req) || !r.draw() {
			continue
		}
		r.injected++
		hit = &Hit{Rule: r.ID, Effect: r.Effect, Req: req}
		break
	}
	s.expireLocked(now)
	hook := s.onInject
	s.mu.Unlock()
	if hit != nil {
		s.counter.inc(hit)
		if hook != nil {
			hook(*hit)
		}
	}
	return hit
}

// ended reports whether r is over at now.
func (r *rule) ended(now time.Time) bool {
	return (r.Count > 0 && r.injected >= r.Count) || (!r.expires.IsZero() && !now.Before(r.expires))
}

// draw reports whether a matching call gets the fault (its probability).
func (r *rule) draw() bool {
	return r.Probability == 0 || r.Probability == 1 || r.rnd.Float64() < r.Probability
}

// matches reports whether r targets req with an effect req's door has.
func (r *rule) matches(req Request) bool {
	t := r.Target
	if !contains(doorEffects[req.Door], r.Effect.Kind) {
		return false
	}
	if t.Door == "" && !contains(streamDoors, req.Door) {
		return false
	}
	switch {
	case t.Door != "" && t.Door != req.Door,
		t.Eventstream != "" && !strings.EqualFold(t.Eventstream, req.Eventstream),
		t.Operation != "" && t.Operation != req.Operation,
		t.Destination != "" && !strings.EqualFold(t.Destination, req.Destination),
		t.Method != "" && t.Method != req.Method:
		return false
	}
	return t.Route == "" || routeMatches(t.Route, req)
}

// routeMatches matches a rule's route: a registered pattern (with its
// method) or a path pattern.
func routeMatches(route string, req Request) bool {
	if strings.Contains(route, " ") {
		return route == req.Route
	}
	ok, _ := path.Match(route, req.Path)
	return ok || route == req.Path
}

// state is r as the API lists it.
func (r *rule) state() wire.FaultRuleState {
	st := wire.FaultRuleState{FaultRule: r.FaultRule, CreatedAt: r.created.UTC(), Injected: r.injected}
	if !r.expires.IsZero() {
		e := r.expires.UTC()
		st.ExpiresAt = &e
	}
	return st
}
