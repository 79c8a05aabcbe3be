package drain

import (
	"context"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// Drains sharing a pool keep their own positions: a drain bound later gets
// only what follows its binding, an earlier one everything since its own,
// each exactly once, over one shared client.
func TestPoolServesDrainsAtTheirOwnPositions(t *testing.T) {
	seeds, topic := cluster(t)
	pool, err := NewPool(seeds, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close(context.Background())
	start := func(group string, sink *memSink) *Drain {
		d, err := Start(t.Context(), Config{Topic: topic, Group: group, Sink: sink, Pool: pool})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { d.Close() })
		return d
	}
	early, late := &memSink{resume: map[int32]int64{}}, &memSink{resume: map[int32]int64{}}
	d1 := start("early", early)
	first := produce(t, seeds, topic, 0, 50)
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	if err := d1.WaitPast(ctx, first); err != nil {
		t.Fatal(err)
	}
	d2 := start("late", late)
	second := produce(t, seeds, topic, 50, 50)
	for _, d := range []*Drain{d1, d2} {
		if err := d.WaitPast(ctx, second); err != nil {
			t.Fatal(err)
		}
	}
	if early.count() != 100 || late.count() != 50 {
		t.Fatalf("early drain has %d records, late %d; want 100 and 50", early.count(), late.count())
	}
}

// Closing a pool returns by its deadline even when the cluster stops
// answering with a fetch in flight.
func TestPoolCloseHonoursDeadline(t *testing.T) {
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(3, "t"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	pool, err := NewPool(c.ListenAddrs(), nil)
	if err != nil {
		t.Fatal(err)
	}
	hung := make(chan struct{}, 1)
	c.ControlKey(int16(kmsg.Fetch), func(kmsg.Request) (kmsg.Response, error, bool) {
		c.KeepControl()
		select {
		case hung <- struct{}{}:
		default:
		}
		return nil, nil, true // read, never answered
	})
	go pool.poll(t.Context(), "t", map[int32]int64{0: 0}, time.Minute)
	select {
	case <-hung:
	case <-time.After(5 * time.Second):
		t.Fatal("no fetch reached the cluster")
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	began := time.Now()
	err = pool.Close(ctx)
	if took := time.Since(began); took > 1500*time.Millisecond {
		t.Fatalf("Close took %s (err %v), want at most its 1 s deadline", took, err)
	}
}

// recs returns records of partition part at offsets from..to.
func recs(part int32, from, to int64) []*kgo.Record {
	var out []*kgo.Record
	for o := from; o <= to; o++ {
		out = append(out, &kgo.Record{Partition: part, Offset: o})
	}
	return out
}

// answer hands each want only what lies at or past its own positions, and
// a want served from one partition gets a slice it cannot append into the
// fetched records with.
func TestPoolAnswersEachWantFromItsPositions(t *testing.T) {
	p := &Pool{wants: map[*want]struct{}{}}
	both := &want{topic: "t", from: map[int32]int64{0: 5, 1: 0}, ch: make(chan fetched, 1)}
	late := &want{topic: "t", from: map[int32]int64{0: 7}, ch: make(chan fetched, 1)}
	p.wants[both], p.wants[late] = struct{}{}, struct{}{}
	part0 := recs(0, 5, 9)
	got := map[string]map[int32][]*kgo.Record{"t": {0: part0[:4], 1: recs(1, 0, 2)}} // 9 left out
	if n := p.answer([]*want{both, late}, map[string]map[int32]int64{"t": {0: 5, 1: 0}}, got, nil); n != 2 {
		t.Fatalf("answered %d wants, want 2", n)
	}
	f := <-both.ch
	if l := lastOffsets(f.records); len(f.records) != 7 || l[0] != 8 || l[1] != 2 {
		t.Fatalf("the early want got %d records ending at %v, want 7 ending at 0/8 and 1/2", len(f.records), l)
	}
	f = <-late.ch
	if len(f.records) != 2 || f.records[0].Offset != 7 || cap(f.records) != 2 {
		t.Fatalf("the late want got %d records from %d (cap %d), want 2 from 7, capped", len(f.records), f.records[0].Offset, cap(f.records))
	}
	if _ = append(f.records, &kgo.Record{Offset: -1}); part0[4].Offset != 9 {
		t.Fatal("appending to an answer overwrote a fetched record")
	}
}

// lastOffsets finds each partition's last offset however the partitions
// interleave.
func TestLastOffsetsOfInterleavedPartitions(t *testing.T) {
	rs := append(append(recs(0, 0, 2), recs(1, 10, 11)...), recs(0, 3, 4)...)
	if l := lastOffsets(rs); len(l) != 2 || l[0] != 4 || l[1] != 11 {
		t.Fatalf("lastOffsets = %v, want 0/4 and 1/11", l)
	}
}

// A want for what the log holds now is answered by the round that carries
// it even with nothing to read; one that came while the round was out
// stands, as a waiting want with nothing does.
func TestPoolAnswersNowWantsOfTheRoundEvenEmpty(t *testing.T) {
	p := &Pool{wants: map[*want]struct{}{}}
	now := &want{topic: "t", from: map[int32]int64{0: 10}, ch: make(chan fetched, 1), now: true}
	later := &want{topic: "t", from: map[int32]int64{0: 10}, ch: make(chan fetched, 1), now: true}
	waiting := &want{topic: "t", from: map[int32]int64{0: 10}, ch: make(chan fetched, 1)}
	p.wants[now], p.wants[later], p.wants[waiting] = struct{}{}, struct{}{}, struct{}{}
	if w := roundWait([]*want{waiting, now}, fetchWait); w != 0 {
		t.Errorf("a round with a now want waits %v on the broker", w)
	}
	if w := roundWait([]*want{waiting}, fetchWait); w != fetchWait {
		t.Errorf("a round of waiting wants waits %v, want %v", w, fetchWait)
	}
	got := map[string]map[int32][]*kgo.Record{"t": {0: recs(0, 5, 9)}}
	if n := p.answer([]*want{now, waiting}, map[string]map[int32]int64{"t": {0: 5}}, got, nil); n != 1 {
		t.Fatalf("answered %d wants, want 1", n)
	}
	if f := <-now.ch; len(f.records) != 0 || f.err != nil {
		t.Errorf("the now want got %d records, %v", len(f.records), f.err)
	}
	if _, ok := p.wants[later]; !ok {
		t.Errorf("a now want made while the round was out was answered by it")
	}
	if _, ok := p.wants[waiting]; !ok {
		t.Errorf("a waiting want with nothing to read was answered")
	}
}
