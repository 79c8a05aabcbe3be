package gateway

import (
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// check returns 0 when the session may use the topic, named by name or, when
// name is empty, by id, as need says (Send, Listen, or 0 to describe it);
// otherwise the error code to answer for it.
func (s *session) check(name string, id [16]byte, need Rights) int16 {
	if name == "" && id != ([16]byte{}) {
		n, ok := s.g.topicName(id)
		if !ok {
			// Clients learn ids only from metadata the gateway passed on,
			// so this is a topic deleted since: make them refresh.
			return kerr.UnknownTopicID.Code
		}
		name = n
	}
	if name == s.grant.Topic && s.grant.may(need) {
		return 0
	}
	return kerr.TopicAuthorizationFailed.Code
}

// refused logs a request whose foreign topics the gateway answers itself.
func (s *session) refused(api string, topics int) {
	if topics > 0 {
		s.log.Warn("kafka gateway: foreign topic refused", "api", api, "topics", topics, "granted", s.grant.Topic)
	}
}

// metadata asks upstream only about the granted topic, never auto-creating
// it, lists foreign topics as TOPIC_AUTHORIZATION_FAILED and points every
// broker at the gateway.
func (s *session) metadata(req *kmsg.MetadataRequest) action {
	v := req.Version
	granted := s.grant.Topic
	var keep []kmsg.MetadataRequestTopic
	var denied []kmsg.MetadataResponseTopic
	if req.Topics == nil || (v == 0 && len(req.Topics) == 0) { // all topics
		t := kmsg.NewMetadataRequestTopic()
		t.Topic = &granted
		keep = append(keep, t)
	} else {
		for _, t := range req.Topics {
			name := ""
			if t.Topic != nil {
				name = *t.Topic
			}
			if code := s.check(name, t.TopicID, 0); code != 0 {
				d := kmsg.NewMetadataResponseTopic()
				d.ErrorCode, d.Topic, d.TopicID = code, t.Topic, t.TopicID
				denied = append(denied, d)
				continue
			}
			keep = append(keep, t)
		}
	}
	s.refused("Metadata", len(denied))
	drop := false // the granted topic was not asked for
	if len(keep) == 0 {
		keep = []kmsg.MetadataRequestTopic{}
		if v == 0 { // v0 reads an empty list as all topics
			t := kmsg.NewMetadataRequestTopic()
			t.Topic = &granted
			keep, drop = append(keep, t), true
		}
	}
	req.Topics = keep
	req.AllowAutoTopicCreation = false
	return action{forward: true, body: req.AppendTo(nil), fix: rewrite(kmsg.NewPtrMetadataResponse(), v, func(resp *kmsg.MetadataResponse) {
		bs := make([]broker, len(resp.Brokers))
		for i, b := range resp.Brokers {
			bs[i] = broker{node: b.NodeID, host: b.Host, port: b.Port}
		}
		for i, b := range s.g.mapBrokers(bs) {
			resp.Brokers[i].Host, resp.Brokers[i].Port = b.host, b.port
		}
		topics := resp.Topics[:0]
		for _, t := range resp.Topics {
			name := ""
			if t.Topic != nil {
				name = *t.Topic
				s.g.recordTopicID(t.TopicID, name)
			} else if n, ok := s.g.topicName(t.TopicID); ok {
				name = n
			}
			if !drop && name == granted {
				topics = append(topics, t)
			}
		}
		resp.Topics = append(topics, denied...)
	})}
}

// produce forwards records for the granted topic and refuses the others.
// Batches are forwarded as sent: the broker behind refuses one that does
// not decompress (Apache Kafka itself, or the embedded broker's
// broker.CheckCompressedBatches).
func (s *session) produce(req *kmsg.ProduceRequest) action {
	if req.TransactionID != nil {
		return action{refuse: "transactional produce is not offered"}
	}
	var keep []kmsg.ProduceRequestTopic
	var denied []kmsg.ProduceResponseTopic
	for _, t := range req.Topics {
		code := s.check(t.Topic, t.TopicID, Send)
		if code == 0 {
			keep = append(keep, t)
			continue
		}
		d := kmsg.NewProduceResponseTopic()
		d.Topic, d.TopicID = t.Topic, t.TopicID
		for _, p := range t.Partitions {
			dp := kmsg.NewProduceResponseTopicPartition()
			dp.Partition, dp.ErrorCode = p.Partition, code
			dp.BaseOffset, dp.LogAppendTime, dp.LogStartOffset = -1, -1, -1
			d.Partitions = append(d.Partitions, dp)
		}
		denied = append(denied, d)
	}
	s.refused("Produce", len(denied))
	s.observeProduce(keep) // data insights
	acks0 := req.Acks == 0
	switch {
	case len(denied) == 0:
		return action{forward: true, noReply: acks0}
	case len(keep) == 0 && acks0:
		return action{} // nothing to send, nothing to answer
	case len(keep) == 0:
		return reply(req, func(resp *kmsg.ProduceResponse) { resp.Topics = denied })
	}
	req.Topics = keep
	a := action{forward: true, body: req.AppendTo(nil), noReply: acks0}
	if !acks0 {
		a.fix = rewrite(kmsg.NewPtrProduceResponse(), req.Version, func(resp *kmsg.ProduceResponse) {
			mergeProduceTopics(resp, denied)
		})
	}
	return a
}

// fetch forwards fetches of the granted topic and refuses the others.
func (s *session) fetch(req *kmsg.FetchRequest) action {
	var keep []kmsg.FetchRequestTopic
	var denied []kmsg.FetchResponseTopic
	for _, t := range req.Topics {
		code := s.check(t.Topic, t.TopicID, Listen)
		if code == 0 {
			keep = append(keep, t)
			continue
		}
		d := kmsg.NewFetchResponseTopic()
		d.Topic, d.TopicID = t.Topic, t.TopicID
		for _, p := range t.Partitions {
			dp := kmsg.NewFetchResponseTopicPartition()
			dp.Partition, dp.ErrorCode = p.Partition, code
			dp.HighWatermark, dp.LastStableOffset, dp.LogStartOffset = -1, -1, -1
			d.Partitions = append(d.Partitions, dp)
		}
		denied = append(denied, d)
	}
	var forgotten []kmsg.FetchRequestForgottenTopic
	for _, t := range req.ForgottenTopics {
		if s.check(t.Topic, t.TopicID, Listen) == 0 {
			forgotten = append(forgotten, t)
		}
	}
	s.refused("Fetch", len(denied))
	switch {
	case len(denied) == 0 && len(forgotten) == len(req.ForgottenTopics):
		return action{forward: true}
	case len(keep) == 0 && len(forgotten) == 0 && len(denied) > 0:
		return reply(req, func(resp *kmsg.FetchResponse) {
			resp.SessionID = req.SessionID
			resp.Topics = denied
		})
	}
	req.Topics, req.ForgottenTopics = keep, forgotten
	a := action{forward: true, body: req.AppendTo(nil)}
	if len(denied) > 0 {
		a.fix = rewrite(kmsg.NewPtrFetchResponse(), req.Version, func(resp *kmsg.FetchResponse) {
			resp.Topics = append(resp.Topics, denied...)
		})
	}
	return a
}

// listOffsets forwards offset lookups of the granted topic.
func (s *session) listOffsets(req *kmsg.ListOffsetsRequest) action {
	var keep []kmsg.ListOffsetsRequestTopic
	var denied []kmsg.ListOffsetsResponseTopic
	for _, t := range req.Topics {
		code := s.check(t.Topic, [16]byte{}, 0)
		if code == 0 {
			keep = append(keep, t)
			continue
		}
		d := kmsg.NewListOffsetsResponseTopic()
		d.Topic = t.Topic
		for _, p := range t.Partitions {
			dp := kmsg.NewListOffsetsResponseTopicPartition()
			dp.Partition, dp.ErrorCode = p.Partition, code
			dp.Timestamp, dp.Offset, dp.LeaderEpoch = -1, -1, -1
			d.Partitions = append(d.Partitions, dp)
		}
		denied = append(denied, d)
	}
	s.refused("ListOffsets", len(denied))
	switch {
	case len(denied) == 0:
		return action{forward: true}
	case len(keep) == 0:
		return reply(req, func(resp *kmsg.ListOffsetsResponse) { resp.Topics = denied })
	}
	req.Topics = keep
	return action{forward: true, body: req.AppendTo(nil), fix: rewrite(kmsg.NewPtrListOffsetsResponse(), req.Version, func(resp *kmsg.ListOffsetsResponse) {
		resp.Topics = append(resp.Topics, denied...)
	})}
}

// offsetForLeaderEpoch forwards epoch lookups of the granted topic.
func (s *session) offsetForLeaderEpoch(req *kmsg.OffsetForLeaderEpochRequest) action {
	var keep []kmsg.OffsetForLeaderEpochRequestTopic
	var denied []kmsg.OffsetForLeaderEpochResponseTopic
	for _, t := range req.Topics {
		code := s.check(t.Topic, [16]byte{}, Listen)
		if code == 0 {
			keep = append(keep, t)
			continue
		}
		d := kmsg.NewOffsetForLeaderEpochResponseTopic()
		d.Topic = t.Topic
		for _, p := range t.Partitions {
			dp := kmsg.NewOffsetForLeaderEpochResponseTopicPartition()
			dp.Partition, dp.ErrorCode = p.Partition, code
			dp.LeaderEpoch, dp.EndOffset = -1, -1
			d.Partitions = append(d.Partitions, dp)
		}
		denied = append(denied, d)
	}
	s.refused("OffsetForLeaderEpoch", len(denied))
	switch {
	case len(denied) == 0:
		return action{forward: true}
	case len(keep) == 0:
		return reply(req, func(resp *kmsg.OffsetForLeaderEpochResponse) { resp.Topics = denied })
	}
	req.Topics = keep
	return action{forward: true, body: req.AppendTo(nil), fix: rewrite(kmsg.NewPtrOffsetForLeaderEpochResponse(), req.Version, func(resp *kmsg.OffsetForLeaderEpochResponse) {
		resp.Topics = append(resp.Topics, denied...)
	})}
}
