package faults

import (
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/fabrictest/fabrictest/emulator/wire"
)

func kafkaRule(count int) wire.FaultRule {
	return wire.FaultRule{Target: wire.FaultTarget{Door: wire.FaultDoorKafka}, Effect: wire.FaultEffect{Kind: wire.FaultError}, Count: count}
}

func TestCountEndsTheRule(t *testing.T) {
	var hits []Hit
	s := NewSet(func(h Hit) { hits = append(hits, h) })
	st, err := s.Add(kafkaRule(2))
	if err != nil {
		t.Fatal(err)
	}
	req := Request{Door: wire.FaultDoorKafka, Operation: wire.FaultProduce}
	for i := range 2 {
		if s.Check(req) == nil {
			t.Fatalf("call %d: no fault, want one", i)
		}
	}
	if h := s.Check(req); h != nil {
		t.Fatalf("third call: fault %+v after a count of 2", h)
	}
	if len(s.List()) != 0 || len(hits) != 2 || hits[0].Rule != st.ID || s.Total() != 2 {
		t.Fatalf("after the count: rules %v, hits %d, total %d", s.List(), len(hits), s.Total())
	}
	if hits[0].Effect.KafkaError != "NOT_ENOUGH_REPLICAS" {
		t.Fatalf("default Kafka error %q", hits[0].Effect.KafkaError)
	}
}

func TestDurationEndsTheRule(t *testing.T) {
	s := NewSet(nil)
	now := time.Unix(1000, 0)
	s.now = func() time.Time { return now }
	r := kafkaRule(0)
	r.DurationSeconds = 5
	if _, err := s.Add(r); err != nil {
		t.Fatal(err)
	}
	if s.Check(Request{Door: wire.FaultDoorKafka}) == nil {
		t.Fatal("no fault within the duration")
	}
	now = now.Add(5 * time.Second)
	if s.Check(Request{Door: wire.FaultDoorKafka}) != nil || len(s.List()) != 0 {
		t.Fatal("fault after the duration")
	}
}

func TestNoLimitLastsTheDefault(t *testing.T) {
	s := NewSet(nil)
	st, err := s.Add(kafkaRule(0))
	if err != nil {
		t.Fatal(err)
	}
	if st.ExpiresAt == nil || st.ExpiresAt.Sub(st.CreatedAt) != wire.DefaultFaultDuration {
		t.Fatalf("expiresAt %v, createdAt %v", st.ExpiresAt, st.CreatedAt)
	}
}

func TestProbabilityRepeatsWithItsSeed(t *testing.T) {
	run := func(seed int64) []bool {
		s := NewSet(nil)
		r := kafkaRule(0)
		r.Probability, r.Seed = 0.5, seed
		if _, err := s.Add(r); err != nil {
			t.Fatal(err)
		}
		out := make([]bool, 200)
		for i := range out {
			out[i] = s.Check(Request{Door: wire.FaultDoorKafka}) != nil
		}
		return out
	}
	a, b, c := run(7), run(7), run(8)
	hits := 0
	for i := range a {
		if a[i] != b[i] {
			t.Fatalf("same seed, call %d differs", i)
		}
		if a[i] {
			hits++
		}
	}
	if hits < 60 || hits > 140 {
		t.Fatalf("%d hits of 200 at probability 0.5", hits)
	}
	if equal(a, c) {
		t.Fatal("seeds 7 and 8 drew the same 200 calls")
	}
}

func equal(a, b []bool) bool {
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestMatching(t *testing.T) {
	cases := []struct {
		name   string
		target wire.FaultTarget
		kind   string
		req    Request
		want   bool
	}{
		{"rest pattern", wire.FaultTarget{Door: "rest", Route: "POST /v1/workspaces"}, "throttle", Request{Door: "rest", Method: "POST", Route: "POST /v1/workspaces", Path: "/v1/workspaces"}, true},
		{"rest pattern other route", wire.FaultTarget{Door: "rest", Route: "POST /v1/workspaces"}, "throttle", Request{Door: "rest", Method: "GET", Route: "GET /v1/workspaces", Path: "/v1/workspaces"}, false},
		{"rest path glob", wire.FaultTarget{Door: "rest", Route: "/v1/workspaces/*/items"}, "error", Request{Door: "rest", Method: "GET", Path: "/v1/workspaces/w1/items"}, true},
		{"rest method", wire.FaultTarget{Door: "rest", Method: "get"}, "error", Request{Door: "rest", Method: "POST"}, false},
		{"eventstream any door", wire.FaultTarget{Eventstream: "ES1", Operation: "produce"}, "throttle", Request{Door: "kafka", Eventstream: "es1", Operation: "produce"}, true},
		{"eventstream other op", wire.FaultTarget{Eventstream: "es1", Operation: "produce"}, "throttle", Request{Door: "kafka", Eventstream: "es1", Operation: "consume"}, false},
		{"eventstream not a destination", wire.FaultTarget{Eventstream: "es1"}, "latency", Request{Door: "destination", Eventstream: "es1"}, false},
		{"drop on every stream door", wire.FaultTarget{Eventstream: "es1"}, "drop", Request{Door: "eventhubs", Eventstream: "es1"}, true},
		{"destination", wire.FaultTarget{Door: "destination", Destination: "d1"}, "writeFailure", Request{Door: "destination", Destination: "d1"}, true},
		{"other destination", wire.FaultTarget{Door: "destination", Destination: "d1"}, "writeFailure", Request{Door: "destination", Destination: "d2"}, false},
		{"broker", wire.FaultTarget{Door: "broker"}, "unreachable", Request{Door: "broker"}, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := NewSet(nil)
			if _, err := s.Add(wire.FaultRule{Target: c.target, Effect: wire.FaultEffect{Kind: c.kind, LatencyMs: 1}}); err != nil {
				t.Fatal(err)
			}
			if got := s.Check(c.req) != nil; got != c.want {
				t.Fatalf("hit %v, want %v", got, c.want)
			}
		})
	}
}

func TestValidateRefuses(t *testing.T) {
	cases := map[string]struct {
		rule  wire.FaultRule
		field string
	}{
		"no door":           {wire.FaultRule{Effect: wire.FaultEffect{Kind: "throttle"}}, "target.door"},
		"unknown door":      {wire.FaultRule{Target: wire.FaultTarget{Door: "smtp"}, Effect: wire.FaultEffect{Kind: "throttle"}}, "target.door"},
		"effect not a door": {wire.FaultRule{Target: wire.FaultTarget{Door: "destination"}, Effect: wire.FaultEffect{Kind: "throttle"}}, "effect.kind"},
		"kafka code":        {wire.FaultRule{Target: wire.FaultTarget{Door: "kafka"}, Effect: wire.FaultEffect{Kind: "error", KafkaError: "NOPE"}}, "effect.kafkaError"},
		"probability":       {wire.FaultRule{Target: wire.FaultTarget{Door: "kafka"}, Effect: wire.FaultEffect{Kind: "error"}, Probability: 2}, "probability"},
		"latency":           {wire.FaultRule{Target: wire.FaultTarget{Door: "rest"}, Effect: wire.FaultEffect{Kind: "latency"}}, "effect.latencyMs"},
		"route on kafka":    {wire.FaultRule{Target: wire.FaultTarget{Door: "kafka", Route: "/x"}, Effect: wire.FaultEffect{Kind: "drop"}}, "target.route"},
		"status":            {wire.FaultRule{Target: wire.FaultTarget{Door: "rest"}, Effect: wire.FaultEffect{Kind: "error", Status: 200}}, "effect.status"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := NewSet(nil).Add(c.rule)
			var ve *ValidationError
			if !errors.As(err, &ve) || ve.Field != c.field {
				t.Fatalf("err %v, want a ValidationError on %s", err, c.field)
			}
		})
	}
}

func TestDeleteAndClear(t *testing.T) {
	s := NewSet(nil)
	r := kafkaRule(0)
	r.ID = "mine"
	if _, err := s.Add(r); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Add(kafkaRule(0)); err != nil {
		t.Fatal(err)
	}
	if err := s.Delete("mine"); err != nil {
		t.Fatal(err)
	}
	if err := s.Delete("mine"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("second delete: %v", err)
	}
	if n := s.Clear(); n != 1 || s.Check(Request{Door: "kafka"}) != nil {
		t.Fatalf("clear ended %d", n)
	}
}

func TestKafkaCode(t *testing.T) {
	if c, ok := KafkaCode("not_enough_replicas"); !ok || c != 19 {
		t.Fatalf("NOT_ENOUGH_REPLICAS: %d %v", c, ok)
	}
}

func FuzzRule(f *testing.F) {
	f.Add([]byte(`{"target":{"door":"kafka"},"effect":{"kind":"error","kafkaError":"REQUEST_TIMED_OUT"},"count":3}`))
	f.Add([]byte(`{"target":{"door":"rest","route":"/v1/[a"},"effect":{"kind":"throttle"}}`))
	f.Add([]byte(`{"target":{"eventstream":"x"},"effect":{"kind":"latency","latencyMs":5},"probability":0.3,"seed":9}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		var r wire.FaultRule
		if json.Unmarshal(b, &r) != nil {
			return
		}
		s := NewSet(nil)
		if _, err := s.Add(r); err != nil {
			var ve *ValidationError
			if !errors.As(err, &ve) {
				t.Fatalf("not a ValidationError: %v", err)
			}
			return
		}
		s.Check(Request{Door: r.Target.Door, Path: "/v1/workspaces", Eventstream: r.Target.Eventstream})
		if len(s.List()) > 1 {
			t.Fatal("more rules than added")
		}
	})
}
