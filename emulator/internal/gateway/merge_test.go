package gateway

import (
	"testing"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// TestMergeProduceTopics: a refused partition joins its topic's entry of
// the upstream answer; another topic gets an entry of its own.
func TestMergeProduceTopics(t *testing.T) {
	resp := kmsg.NewPtrProduceResponse()
	up := kmsg.NewProduceResponseTopic()
	up.Topic = "granted"
	up.Partitions = []kmsg.ProduceResponseTopicPartition{{Partition: 0}}
	resp.Topics = []kmsg.ProduceResponseTopic{up}
	bad := kmsg.NewProduceResponseTopic()
	bad.Topic = "granted"
	bad.Partitions = []kmsg.ProduceResponseTopicPartition{{Partition: 1, ErrorCode: kerr.UnknownServerError.Code}}
	foreign := kmsg.NewProduceResponseTopic()
	foreign.Topic = "other"
	mergeProduceTopics(resp, []kmsg.ProduceResponseTopic{bad, foreign})
	if len(resp.Topics) != 2 || len(resp.Topics[0].Partitions) != 2 || resp.Topics[0].Partitions[1].Partition != 1 || resp.Topics[1].Topic != "other" {
		t.Fatalf("merged answer: %+v", resp.Topics)
	}
}
