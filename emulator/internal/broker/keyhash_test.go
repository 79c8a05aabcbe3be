package broker

import (
	"fmt"
	"testing"

	"github.com/twmb/franz-go/pkg/kgo"
)

// TestKeyPartitionIsKafkas: keys of every tail length land where
// franz-go's StickyKeyPartitioner (Kafka's default, murmur2) puts them, on
// topics of 1 to 64 partitions.
func TestKeyPartitionIsKafkas(t *testing.T) {
	ref := kgo.StickyKeyPartitioner(nil).ForTopic("t")
	for i := range 500 {
		key := []byte(fmt.Sprintf("sensor-%d", i*7919))[:1+i%14]
		for _, n := range []int{1, 3, 4, 32, 64} {
			want := ref.Partition(&kgo.Record{Key: key}, n)
			if got := keyPartition(key, n); got != want {
				t.Fatalf("key %q over %d partitions: %d, want %d", key, n, got, want)
			}
		}
	}
	if got, want := keyPartition([]byte{}, 4), ref.Partition(&kgo.Record{Key: []byte{}}, 4); got != want {
		t.Fatalf("empty key: %d, want %d", got, want)
	}
}
