package broker

import (
	"context"
	"reflect"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

// The consume route's direct offset listing answers what the admin
// client's does (Kafka's ListOffsets, earliest -2 and latest -1), and
// takes the direct way on a healthy broker.
func TestListOffsetsDirectMatchesAdmin(t *testing.T) {
	b, err := Embedded(EmbeddedConfig{}, WithPartitions(3))
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	const topic = "listed"
	recs := make([]*kgo.Record, 0, 20)
	for i := range 20 {
		recs = append(recs, &kgo.Record{Partition: int32(i % 2), Value: []byte{byte(i)}})
	}
	if _, err := b.Produce(ctx, topic, recs); err != nil {
		t.Fatal(err)
	}
	cl, err := b.fetchers.get()
	if err != nil {
		t.Fatal(err)
	}
	defer b.fetchers.put(cl)
	starts, ends, ok := listOffsetsDirect(ctx, cl, topic)
	if !ok {
		t.Fatal("the direct listing gave up on a healthy broker")
	}
	wantStarts, wantEnds, err := b.listOffsetsAdmin(ctx, topic)
	if err != nil {
		t.Fatal(err)
	}
	offsets := func(l kadm.ListedOffsets) map[int32]int64 { return listed(l, topic) }
	if got, want := offsets(starts), offsets(wantStarts); !reflect.DeepEqual(got, want) {
		t.Errorf("starts %v, admin client's %v", got, want)
	}
	if got, want := offsets(ends), offsets(wantEnds); !reflect.DeepEqual(got, want) || len(got) != 3 {
		t.Errorf("ends %v, admin client's %v (3 partitions)", got, want)
	}
	var total int64
	for p, e := range offsets(ends) {
		total += e - offsets(starts)[p]
	}
	if total != 20 {
		t.Errorf("the listed ranges hold %d records, want 20", total)
	}
	if _, _, ok := listOffsetsDirect(ctx, cl, "no-such-topic"); ok {
		t.Error("the direct listing answered for a topic that does not exist")
	}
}
