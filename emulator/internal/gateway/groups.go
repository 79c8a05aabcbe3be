package gateway

import (
	"strings"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// scopeGroup forwards a group request with its group id prefixed.
func (s *session) scopeGroup(req kmsg.Request, group *string) action {
	if s.grant.GroupPrefix == "" {
		return action{forward: true}
	}
	*group = s.grant.GroupPrefix + *group
	return action{forward: true, body: req.AppendTo(nil)}
}

// describeGroups prefixes the group ids asked for and strips the prefix
// from the answer.
func (s *session) describeGroups(req *kmsg.DescribeGroupsRequest) action {
	prefix := s.grant.GroupPrefix
	if prefix == "" {
		return action{forward: true}
	}
	for i := range req.Groups {
		req.Groups[i] = prefix + req.Groups[i]
	}
	return action{forward: true, body: req.AppendTo(nil), fix: rewrite(kmsg.NewPtrDescribeGroupsResponse(), req.Version, func(resp *kmsg.DescribeGroupsResponse) {
		for i := range resp.Groups {
			resp.Groups[i].Group = strings.TrimPrefix(resp.Groups[i].Group, prefix)
		}
	})}
}

// findCoordinator prefixes group keys and points the coordinators it
// finds at the gateway.
func (s *session) findCoordinator(req *kmsg.FindCoordinatorRequest) action {
	prefix := s.grant.GroupPrefix
	if req.CoordinatorType != 0 { // only group keys are scoped
		prefix = ""
	}
	var body []byte
	if prefix != "" {
		req.CoordinatorKey = prefix + req.CoordinatorKey
		for i := range req.CoordinatorKeys {
			req.CoordinatorKeys[i] = prefix + req.CoordinatorKeys[i]
		}
		body = req.AppendTo(nil)
	}
	g := s.g
	return action{forward: true, body: body, fix: rewrite(kmsg.NewPtrFindCoordinatorResponse(), req.Version, func(resp *kmsg.FindCoordinatorResponse) {
		if resp.Version < 4 {
			if resp.ErrorCode == 0 {
				b := g.mapBroker(broker{node: resp.NodeID, host: resp.Host, port: resp.Port})
				resp.Host, resp.Port = b.host, b.port
			}
			return
		}
		for i := range resp.Coordinators {
			c := &resp.Coordinators[i]
			if c.ErrorCode == 0 {
				b := g.mapBroker(broker{node: c.NodeID, host: c.Host, port: c.Port})
				c.Host, c.Port = b.host, b.port
			}
			c.Key = strings.TrimPrefix(c.Key, prefix)
		}
	})}
}

// offsetCommit prefixes the group and commits only the granted topic.
func (s *session) offsetCommit(req *kmsg.OffsetCommitRequest) action {
	var keep []kmsg.OffsetCommitRequestTopic
	var denied []kmsg.OffsetCommitResponseTopic
	for _, t := range req.Topics {
		code := s.check(t.Topic, t.TopicID, Listen)
		if code == 0 {
			keep = append(keep, t)
			continue
		}
		d := kmsg.NewOffsetCommitResponseTopic()
		d.Topic, d.TopicID = t.Topic, t.TopicID
		for _, p := range t.Partitions {
			dp := kmsg.NewOffsetCommitResponseTopicPartition()
			dp.Partition, dp.ErrorCode = p.Partition, code
			d.Partitions = append(d.Partitions, dp)
		}
		denied = append(denied, d)
	}
	s.refused("OffsetCommit", len(denied))
	switch {
	case len(denied) > 0 && len(keep) == 0:
		return reply(req, func(resp *kmsg.OffsetCommitResponse) { resp.Topics = denied })
	case len(denied) == 0 && s.grant.GroupPrefix == "":
		return action{forward: true}
	}
	req.Group = s.grant.GroupPrefix + req.Group
	req.Topics = keep
	a := action{forward: true, body: req.AppendTo(nil)}
	if len(denied) > 0 {
		a.fix = rewrite(kmsg.NewPtrOffsetCommitResponse(), req.Version, func(resp *kmsg.OffsetCommitResponse) {
			resp.Topics = append(resp.Topics, denied...)
		})
	}
	return a
}

// offsetFetch prefixes the groups, asks only about the granted topic and
// strips the prefix from the answer. Foreign topics are answered with
// TOPIC_AUTHORIZATION_FAILED; asking for all topics shows only the granted
// one.
func (s *session) offsetFetch(req *kmsg.OffsetFetchRequest) action {
	prefix, granted := s.grant.GroupPrefix, s.grant.Topic
	if req.Version < 8 {
		return s.offsetFetchV0(req)
	}
	denied := map[string][]kmsg.OffsetFetchResponseGroupTopic{} // by the client's group id
	n := 0
	for i := range req.Groups {
		grp := &req.Groups[i]
		if grp.Topics != nil {
			keep := []kmsg.OffsetFetchRequestGroupTopic{}
			for _, t := range grp.Topics {
				code := s.check(t.Topic, t.TopicID, Listen)
				if code == 0 {
					keep = append(keep, t)
					continue
				}
				d := kmsg.NewOffsetFetchResponseGroupTopic()
				d.Topic, d.TopicID = t.Topic, t.TopicID
				for _, p := range t.Partitions {
					dp := kmsg.NewOffsetFetchResponseGroupTopicPartition()
					dp.Partition, dp.ErrorCode, dp.Offset, dp.LeaderEpoch = p, code, -1, -1
					d.Partitions = append(d.Partitions, dp)
				}
				denied[grp.Group] = append(denied[grp.Group], d)
				n++
			}
			grp.Topics = keep
		}
		grp.Group = prefix + grp.Group
	}
	s.refused("OffsetFetch", n)
	return action{forward: true, body: req.AppendTo(nil), fix: rewrite(kmsg.NewPtrOffsetFetchResponse(), req.Version, func(resp *kmsg.OffsetFetchResponse) {
		for i := range resp.Groups {
			grp := &resp.Groups[i]
			grp.Group = strings.TrimPrefix(grp.Group, prefix)
			topics := grp.Topics[:0]
			for _, t := range grp.Topics {
				if t.Topic == granted {
					topics = append(topics, t)
				}
			}
			grp.Topics = append(topics, denied[grp.Group]...)
		}
	})}
}

// offsetFetchV0 is offsetFetch for versions 0 to 7, one group per request.
func (s *session) offsetFetchV0(req *kmsg.OffsetFetchRequest) action {
	granted := s.grant.Topic
	var denied []kmsg.OffsetFetchResponseTopic
	if req.Topics != nil {
		keep := []kmsg.OffsetFetchRequestTopic{}
		for _, t := range req.Topics {
			code := s.check(t.Topic, [16]byte{}, Listen)
			if code == 0 {
				keep = append(keep, t)
				continue
			}
			d := kmsg.NewOffsetFetchResponseTopic()
			d.Topic = t.Topic
			for _, p := range t.Partitions {
				dp := kmsg.NewOffsetFetchResponseTopicPartition()
				dp.Partition, dp.ErrorCode, dp.Offset, dp.LeaderEpoch = p, code, -1, -1
				d.Partitions = append(d.Partitions, dp)
			}
			denied = append(denied, d)
		}
		s.refused("OffsetFetch", len(denied))
		if len(keep) == 0 && len(denied) > 0 {
			return reply(req, func(resp *kmsg.OffsetFetchResponse) { resp.Topics = denied })
		}
		req.Topics = keep
	}
	req.Group = s.grant.GroupPrefix + req.Group
	return action{forward: true, body: req.AppendTo(nil), fix: rewrite(kmsg.NewPtrOffsetFetchResponse(), req.Version, func(resp *kmsg.OffsetFetchResponse) {
		topics := resp.Topics[:0]
		for _, t := range resp.Topics {
			if t.Topic == granted {
				topics = append(topics, t)
			}
		}
		resp.Topics = append(topics, denied...)
	})}
}
