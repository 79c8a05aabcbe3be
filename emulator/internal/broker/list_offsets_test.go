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
	cl, err := b.fetchers.get(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	defer b.fetchers.put(cl)
	starts, ends, ok := b.listOffsetsDirect(ctx, cl, topic)
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
	if _, _, ok := b.listOffsetsDirect(ctx, cl, "no-such-topic"); ok {
		t.Error("the direct listing answered for a topic that does not exist")
	}
}

// The partition leaders the direct listing remembers are dropped on any
// trouble: a remembered leader that no longer leads (here a broker that
// does not exist) costs one listing through the admin client, which still
// answers right, and the next listing asks the metadata again.
func TestListOffsetsForgetsStaleLeaders(t *testing.T) {
	b, err := Embedded(EmbeddedConfig{}, WithPartitions(2))
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	const topic = "moved"
	// The producer picks the partition (a record's Partition is not
	// honoured), so the test follows the one it reports.
	at, err := b.Produce(ctx, topic, []*kgo.Record{{Value: []byte("x")}})
	if err != nil {
		t.Fatal(err)
	}
	p := at[0].Partition
	cl, err := b.fetchers.get(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	defer b.fetchers.put(cl)
	b.leaders.Store(topic, map[int32]int32{0: 99, 1: 99})
	_, ends, err := b.listOffsets(ctx, cl, topic)
	if err != nil || listed(ends, topic)[p] != 1 {
		t.Fatalf("ends %v (%v), want partition %d at 1", listed(ends, topic), err, p)
	}
	if _, ok := b.leaders.Load(topic); ok {
		t.Fatal("the stale leaders are still remembered")
	}
	if _, _, ok := b.listOffsetsDirect(ctx, cl, topic); !ok {
		t.Fatal("the direct listing failed after the leaders were asked again")
	}
	if l, ok := b.leaders.Load(topic); !ok || l.(map[int32]int32)[p] == 99 {
		t.Fatalf("leaders remembered %v, want the broker's", l)
	}
	if err := b.DeleteTopic(ctx, topic); err != nil {
		t.Fatal(err)
	}
	if _, ok := b.leaders.Load(topic); ok {
		t.Fatal("a deleted topic's leaders are still remembered")
	}
}
