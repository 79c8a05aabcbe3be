package gateway

import "github.com/twmb/franz-go/pkg/kmsg"

// mergeProduceTopics adds local answers to an upstream produce response,
// into the topic's entry when the response has one.
func mergeProduceTopics(resp *kmsg.ProduceResponse, local []kmsg.ProduceResponseTopic) {
	for _, l := range local {
		merged := false
		for i := range resp.Topics {
			t := &resp.Topics[i]
			if (l.Topic != "" && t.Topic == l.Topic) || (l.Topic == "" && t.TopicID == l.TopicID) {
				t.Partitions = append(t.Partitions, l.Partitions...)
				merged = true
				break
			}
		}
		if !merged {
			resp.Topics = append(resp.Topics, l)
		}
	}
}
