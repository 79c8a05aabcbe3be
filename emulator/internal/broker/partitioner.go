package broker

import (
	"math/rand/v2"

	"github.com/twmb/franz-go/pkg/kgo"
)

// callPartitioner partitions the records of one produce call on a pooled
// producer (kgo.ManualFlushing, so nothing leaves before the call's Flush).
// A keyed record goes where Kafka's default partitioner sends it (murmur2
// of the key over every partition). Unkeyed records stay on one partition
// until its batch is full (ProducerBatchMaxBytes); then, and at the next
// call's first unkeyed record (the previous call's batches are gone by
// then), they move to the partition holding the fewest buffered records of
// this client, a random one among equals. So an unkeyed call that fits one
// batch lands on one partition, and a bigger one puts at most one batch on
// each partition while partitions are free: the Flush sends every
// partition's first batch in one Produce request.
type callPartitioner struct{}

// ForTopic returns the partitioner of one topic.
func (callPartitioner) ForTopic(topic string) kgo.TopicPartitioner {
	return &callTopicPartitioner{keyed: kgo.StickyKeyPartitioner(nil).ForTopic(topic), on: -1}
}

// callTopicPartitioner is callPartitioner for one topic. franz-go calls it
// for one record at a time (kgo.Partitioner).
type callTopicPartitioner struct {
	keyed     kgo.TopicPartitioner // Kafka's key hashing
	on        int                  // the unkeyed records' partition index; -1: pick anew
	lastKeyed bool                 // the record partitioned last had a key
}

// RequiresConsistency keeps a keyed record on its key's partition even
// while that partition has no leader, as Kafka's partitioner does.
func (p *callTopicPartitioner) RequiresConsistency(r *kgo.Record) bool {
	_, pin := pinned(r)
	return pin || r.Key != nil
}

// Partition is never called: PartitionByBackup is.
func (p *callTopicPartitioner) Partition(r *kgo.Record, n int) int {
	return p.PartitionByBackup(r, n, nil)
}

// OnNewBatch is called when the record just partitioned would start a new
// batch on its partition: for an unkeyed record, the pin moves on.
func (p *callTopicPartitioner) OnNewBatch() {
	if !p.lastKeyed {
		p.on = -1
	}
}

// PartitionByBackup picks r's partition among n: by key hash, else the
// pinned one, else the least backed up; a record pinned by PinPartition
// goes to its partition (when the topic has it; the caller checks).
func (p *callTopicPartitioner) PartitionByBackup(r *kgo.Record, n int, backup kgo.TopicBackupIter) int {
	if pin, ok := pinned(r); ok && int(pin) < n {
		p.lastKeyed = true // the unkeyed records' pin stays
		return int(pin)
	}
	if p.lastKeyed = r.Key != nil; p.lastKeyed {
		return p.keyed.Partition(r, n)
	}
	if p.on >= 0 && p.on < n {
		return p.on
	}
	if backup == nil {
		p.on = rand.IntN(n)
		return p.on
	}
	least, ties := int64(-1), 0
	for backup.Rem() > 0 {
		i, buffered := backup.Next()
		switch {
		case least < 0 || buffered < least:
			least, ties, p.on = buffered, 1, i
		case buffered == least:
			if ties++; rand.IntN(ties) == 0 { // a uniform pick among equals
				p.on = i
			}
		}
	}
	return p.on
}
