package gateway

import (
	"fmt"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// dispatch decides what to do with one request.
func (s *session) dispatch(r *request) action {
	if r.msg == nil {
		return action{refuse: "unknown API key"}
	}
	if r.key == int16(kmsg.ApiVersions) {
		return s.apiVersions(r)
	}
	if r.version > r.msg.MaxVersion() {
		return action{refuse: "version unknown to the gateway"}
	}
	switch r.key {
	case int16(kmsg.SASLHandshake), int16(kmsg.SASLAuthenticate):
	default:
		if !s.authed {
			return action{refuse: "request before SASL authentication"}
		}
		top := offeredMax(r.key)
		if top < 0 {
			return action{refuse: "API not offered by the Event Hubs endpoint"}
		}
		if r.version > top {
			return action{refuse: fmt.Sprintf("version above the offered v%d", top)}
		}
	}
	if err := r.msg.ReadFrom(r.body); err != nil {
		return action{refuse: fmt.Sprintf("malformed request: %v", err)}
	}
	if a, done := s.injectFault(r); done {
		return a
	}
	switch req := r.msg.(type) {
	case *kmsg.SASLHandshakeRequest:
		return s.saslHandshake(r, req)
	case *kmsg.SASLAuthenticateRequest:
		return s.saslAuthenticate(r, req)
	case *kmsg.MetadataRequest:
		return s.metadata(req)
	case *kmsg.ProduceRequest:
		return s.produce(req)
	case *kmsg.FetchRequest:
		return s.fetch(req)
	case *kmsg.ListOffsetsRequest:
		return s.listOffsets(req)
	case *kmsg.OffsetForLeaderEpochRequest:
		return s.offsetForLeaderEpoch(req)
	case *kmsg.OffsetCommitRequest:
		return s.offsetCommit(req)
	case *kmsg.OffsetFetchRequest:
		return s.offsetFetch(req)
	case *kmsg.FindCoordinatorRequest:
		return s.findCoordinator(req)
	case *kmsg.DescribeGroupsRequest:
		return s.describeGroups(req)
	case *kmsg.JoinGroupRequest:
		return s.scopeGroup(req, &req.Group)
	case *kmsg.SyncGroupRequest:
		return s.scopeGroup(req, &req.Group)
	case *kmsg.HeartbeatRequest:
		return s.scopeGroup(req, &req.Group)
	case *kmsg.LeaveGroupRequest:
		return s.scopeGroup(req, &req.Group)
	case *kmsg.InitProducerIDRequest:
		if req.TransactionalID != nil {
			return action{refuse: "transactions are not offered"}
		}
	}
	return action{forward: true}
}

// rewrite returns a response fix that parses the response at version, lets
// f change it and encodes it again.
func rewrite[T kmsg.Response](resp T, version int16, f func(T)) func([]byte) ([]byte, error) {
	return func(body []byte) ([]byte, error) {
		resp.SetVersion(version)
		if err := resp.ReadFrom(body); err != nil {
			return nil, err
		}
		f(resp)
		return resp.AppendTo(nil), nil
	}
}

// reply builds a local answer to req.
func reply[T kmsg.Response](req kmsg.Request, f func(T)) action {
	resp := req.ResponseKind().(T)
	resp.SetVersion(req.GetVersion())
	f(resp)
	return action{local: resp}
}
