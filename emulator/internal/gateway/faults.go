package gateway

import (
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// Fault is what the host asks the gateway to inject into one request of
// an authenticated connection.
type Fault struct {
	// ThrottleMillis is set as the answer's throttle time, and the
	// connection reads its next request only after it, as a broker
	// enforcing a quota mutes the channel (KIP-219).
	ThrottleMillis int32
	// ErrorCode, when not zero, answers a Produce or Fetch locally with
	// this Kafka error code on every partition: nothing is forwarded.
	ErrorCode int16
	// Drop closes the connection without an answer, forwarding nothing.
	Drop bool
	// Delay holds the request this long before it goes on.
	Delay time.Duration
}

// FaultCheck is asked, for every request of an authenticated connection,
// which fault to inject (nil: none). api is the request's Kafka name
// (Produce, Fetch, Metadata, …); a fault other than Drop or Delay only
// applies to Produce and Fetch. It runs on the session's goroutine.
type FaultCheck func(g Grant, api string) *Fault

// WithFaults sets the check the gateway asks before each request.
func WithFaults(f FaultCheck) Option {
	return func(g *Gateway) { g.faults = f }
}

// injectFault applies the host's fault to r. It answers the action when
// the fault decides the request's fate; otherwise the request goes on
// (after a delay, with a throttle to add to its answer).
func (s *session) injectFault(r *request) (action, bool) {
	if !s.authed || s.g.faults == nil {
		return action{}, false
	}
	f := s.g.faults(s.grant, kmsg.NameForKey(r.key))
	if f == nil {
		return action{}, false
	}
	if f.Delay > 0 {
		select {
		case <-time.After(f.Delay):
		case <-s.done:
		}
	}
	if f.Drop {
		return action{refuse: "injected fault: the connection is dropped"}, true
	}
	switch req := r.msg.(type) {
	case *kmsg.ProduceRequest:
		if f.ErrorCode != 0 {
			return produceFault(req, f), true
		}
	case *kmsg.FetchRequest:
		if f.ErrorCode != 0 {
			return fetchFault(req, f), true
		}
	default:
		return action{}, false
	}
	s.throttleNext = f.ThrottleMillis
	return action{}, false
}

// produceFault answers every partition of req with f's error code.
func produceFault(req *kmsg.ProduceRequest, f *Fault) action {
	if req.Acks == 0 {
		return action{} // the client waits for no answer; nothing is written
	}
	return reply(req, func(resp *kmsg.ProduceResponse) {
		resp.ThrottleMillis = f.ThrottleMillis
		for _, t := range req.Topics {
			rt := kmsg.NewProduceResponseTopic()
			rt.Topic, rt.TopicID = t.Topic, t.TopicID
			for _, p := range t.Partitions {
				rp := kmsg.NewProduceResponseTopicPartition()
				rp.Partition, rp.ErrorCode = p.Partition, f.ErrorCode
				rp.BaseOffset, rp.LogAppendTime, rp.LogStartOffset = -1, -1, -1
				rt.Partitions = append(rt.Partitions, rp)
			}
			resp.Topics = append(resp.Topics, rt)
		}
	})
}

// fetchFault answers every partition of req with f's error code.
func fetchFault(req *kmsg.FetchRequest, f *Fault) action {
	return reply(req, func(resp *kmsg.FetchResponse) {
		resp.ThrottleMillis = f.ThrottleMillis
		for _, t := range req.Topics {
			rt := kmsg.NewFetchResponseTopic()
			rt.Topic, rt.TopicID = t.Topic, t.TopicID
			for _, p := range t.Partitions {
				rp := kmsg.NewFetchResponseTopicPartition()
				rp.Partition, rp.ErrorCode = p.Partition, f.ErrorCode
				rp.HighWatermark, rp.LastStableOffset, rp.LogStartOffset = -1, -1, -1
				rt.Partitions = append(rt.Partitions, rp)
			}
			resp.Topics = append(resp.Topics, rt)
		}
	})
}

// throttle adds the pending throttle time to a's answer; the caller then
// waits it out (muted) before reading on.
func (s *session) throttle(r *request, a action) (action, time.Duration) {
	ms := s.throttleNext
	s.throttleNext = 0
	if ms <= 0 || !a.forward || a.noReply {
		return a, 0
	}
	prev := a.fix
	var set func([]byte) ([]byte, error)
	switch r.key {
	case int16(kmsg.Produce):
		set = rewrite(kmsg.NewPtrProduceResponse(), r.version, func(resp *kmsg.ProduceResponse) { resp.ThrottleMillis = ms })
	case int16(kmsg.Fetch):
		set = rewrite(kmsg.NewPtrFetchResponse(), r.version, func(resp *kmsg.FetchResponse) { resp.ThrottleMillis = ms })
	default:
		return a, 0
	}
	a.fix = func(body []byte) ([]byte, error) {
		if prev != nil {
			var err error
			if body, err = prev(body); err != nil {
				return nil, err
			}
		}
		return set(body)
	}
	return a, time.Duration(ms) * time.Millisecond
}
