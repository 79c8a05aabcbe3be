package emulator_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/messaging/azeventhubs"
)

// TestEventHubsConsumerGroups: azeventhubs with the destination's string
// reads in $Default (the group the connection route names) and in the
// destination's own group (its id, the GUID Fabric's portal shows), each
// from the start; a group the hub does not have (an unknown name, or the
// id of a Lakehouse destination) is refused with amqp:not-found naming the
// entity; owner levels (epochs) are kept per group: an exclusive receiver
// in one group leaves the other group's alone, and a higher one in the
// same group takes the partition over.
func TestEventHubsConsumerGroups(t *testing.T) {
	f := deployEndpoint(t)
	ctx := ehContext(t)
	c := f.connection("GET", "/sources/"+f.src+"/connection", nil)
	d := f.connection("GET", "/destinations/"+f.out+"/connection", nil)
	if d.ConsumerGroupName == nil || *d.ConsumerGroupName != azeventhubs.DefaultConsumerGroup {
		t.Fatalf("destination's consumerGroupName %v, want $Default", d.ConsumerGroupName)
	}
	zero := "0"
	if err := ehSend(ctx, ehProducer(t, c.AccessKeys.PrimaryConnectionString), &azeventhubs.EventDataBatchOptions{PartitionID: &zero}, nil, `{"n":1}`, `{"n":2}`); err != nil {
		t.Fatalf("send: %v", err)
	}
	consumer := func(group string) *azeventhubs.ConsumerClient {
		cc, err := azeventhubs.NewConsumerClientFromConnectionString(d.AccessKeys.PrimaryConnectionString, "", group, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cc.Close(context.Background()) })
		return cc
	}
	partition := func(cc *azeventhubs.ConsumerClient, owner int64) *azeventhubs.PartitionClient {
		opts := &azeventhubs.PartitionClientOptions{StartPosition: azeventhubs.StartPosition{Earliest: to(true)}}
		if owner > 0 {
			opts.OwnerLevel = &owner
		}
		pc, err := cc.NewPartitionClient("0", opts)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { pc.Close(context.Background()) })
		return pc
	}
	receive := func(pc *azeventhubs.PartitionClient, n int) ([]string, error) {
		var got []string
		for len(got) < n {
			rctx, cancel := context.WithTimeout(ctx, 5*time.Second)
			evs, err := pc.ReceiveEvents(rctx, n-len(got), nil)
			cancel()
			for _, ev := range evs {
				got = append(got, string(ev.Body))
			}
			if err != nil {
				return got, err
			}
		}
		return got, nil
	}
	own := partition(consumer(f.out), 5)
	def := partition(consumer(azeventhubs.DefaultConsumerGroup), 1)
	for name, pc := range map[string]*azeventhubs.PartitionClient{"destination's group": own, "$Default": def} {
		if got, err := receive(pc, 2); err != nil || strings.Join(got, ",") != `{"n":1},{"n":2}` {
			t.Fatalf("%s read %q, %v; want both events from the start", name, got, err)
		}
	}

	for _, group := range []string{"nope", f.lake} {
		_, err := receive(partition(consumer(group), 0), 1)
		if err == nil || !strings.Contains(err.Error(), "amqp:not-found") || !strings.Contains(err.Error(), "/ConsumerGroups/"+group+"' could not be found") {
			t.Fatalf("group %s: %v, want amqp:not-found naming the consumer group", group, err)
		}
	}

	// A higher owner level in the destination's group takes partition 0
	// from `own`; $Default's receiver (owner level 1) keeps reading.
	if got, err := receive(partition(consumer(f.out), 6), 2); err != nil || len(got) != 2 {
		t.Fatalf("owner level 6 read %q, %v", got, err)
	}
	_, err := receive(own, 1)
	var ehErr *azeventhubs.Error
	if !errors.As(err, &ehErr) || ehErr.Code != azeventhubs.ErrorCodeOwnershipLost {
		t.Fatalf("owner level 5 after 6 opened in its group: %v, want ErrorCodeOwnershipLost", err)
	}
	if err := ehSend(ctx, ehProducer(t, c.AccessKeys.PrimaryConnectionString), &azeventhubs.EventDataBatchOptions{PartitionID: &zero}, nil, `{"n":3}`); err != nil {
		t.Fatalf("send: %v", err)
	}
	if got, err := receive(def, 1); err != nil || strings.Join(got, ",") != `{"n":3}` {
		t.Fatalf("$Default's receiver after the other group's takeover read %q, %v", got, err)
	}
}
