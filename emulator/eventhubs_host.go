package emulator

// The Event Hubs door's host: the adapter between package eventhubs (the
// AMQP 1.0 protocol as Event Hubs speaks it) and the emulator. An event
// hub is the topic of an Eventstream's stream, named as the connection
// strings of CustomEndpoint nodes name it (EntityPath); its partitions are
// the topic's.
//
// Authorization. A SAS token (servicebus.windows.net:sastoken on $cbs) is
// parsed and its signature checked with the primary, then the secondary
// key of the key name it carries (skn), through the ingest seam's key
// cache; it must not be expired, its resource (sr) must cover the entity
// the client asks for, and name the endpoint's topic or the namespace
// root. Host names in sr are not compared: the emulator answers on any
// name. SASL PLAIN takes "$ConnectionString" and the connection string,
// as the Kafka endpoint does. A source's key grants Send, a
// destination's Listen. An Entra token (jwt) must be one the emulator's
// verifier accepts for the audience https://eventhubs.azure.net, and its
// principal must hold Contributor or higher in the Eventstream's
// workspace (fabric-docs, "Connect to Eventstream using Microsoft Entra ID
// authentication"); it grants Send and Listen on the event hub its
// put-token names.
//
// Sending goes through the ingest seam (control.Ingest.Open, CheckEvent,
// Lane.Write with Accepted), so pause, Fabric's 1 MB limit and data
// insights are those of the HTTP and Kafka doors. An event becomes one
// Kafka record: the body (data sections joined) is the value, the
// partition key is the key (so Kafka's default partitioner places it, and
// a Kafka consumer reads it as the record key), a partition id pins the
// partition. Reading: sequence number and offset are both the Kafka
// offset, the enqueued time the record's timestamp, and the record key
// the partition key.
//
// Properties. Microsoft documents how application properties cross
// between protocols (Event Hubs, "Exchange events between consumers and
// producers that use different protocols"): a Kafka header reaches an
// AMQP consumer as an application property whose value is binary, and an
// AMQP application property reaches a Kafka consumer as a header whose
// value is the AMQP encoding of the value (type constructor included).
// The emulator does the same. So that AMQP consumers get back the types
// AMQP producers sent, an AMQP-sent record with a properties section or
// application properties carries one more header, x-opt-amqp-properties,
// whose value is the message's AMQP properties section (message id,
// content type, correlation id…), possibly empty: with it present, the
// other headers are read back as AMQP values; without it (a Kafka or HTTP
// produce, or an AMQP message with neither), as binary.

import (
	"context"
	"errors"
	"fmt"
	"github.com/fabrictest/fabrictest/emulator/wire"
	"strings"
	"time"

	"github.com/fabrictest/fabrictest/emulator/internal/amqp/eventhubs"
	"github.com/fabrictest/fabrictest/emulator/internal/broker"
	"github.com/fabrictest/fabrictest/emulator/internal/control"
	"github.com/fabrictest/fabrictest/emulator/internal/eventstream"
	"github.com/fabrictest/fabrictest/emulator/internal/store"
)

// ehHost is the Event Hubs door's eventhubs.Host.
type ehHost struct {
	s *Server
}

// hubOf finds the Eventstream and stream whose topic is hub.
func (h ehHost) hubOf(ctx context.Context, hub string) (store.Item, eventstream.Stream, error) {
	itemID, _, ok := strings.Cut(hub, ".")
	if !ok || hub == "" {
		return store.Item{}, eventstream.Stream{}, fmt.Errorf("the messaging entity '%s' could not be found: %w", hub, eventhubs.ErrNotFound)
	}
	it, err := h.s.store.GetItem(ctx, itemID)
	if errors.Is(err, store.ErrNotFound) || (err == nil && it.Type != "Eventstream") {
		return it, eventstream.Stream{}, fmt.Errorf("the messaging entity '%s' could not be found: %w", hub, eventhubs.ErrNotFound)
	} else if err != nil {
		return it, eventstream.Stream{}, err
	}
	m, err := eventstream.Decode(it)
	if err != nil {
		return it, eventstream.Stream{}, fmt.Errorf("read eventstream %s: %w", itemID, err)
	}
	for _, st := range m.Streams {
		if st.Topic == hub {
			return it, st, nil
		}
	}
	return it, eventstream.Stream{}, fmt.Errorf("the messaging entity '%s' could not be found: %w", hub, eventhubs.ErrNotFound)
}

// Hub implements eventhubs.Host: the topic's partitions.
func (h ehHost) Hub(ctx context.Context, name string) (eventhubs.HubInfo, error) {
	it, _, err := h.hubOf(ctx, name)
	if err != nil {
		return eventhubs.HubInfo{}, err
	}
	ends, err := h.s.broker.EndOffsets(ctx, name)
	if err != nil {
		return eventhubs.HubInfo{}, fmt.Errorf("read partitions of %s: %v: %w", name, err, eventhubs.ErrServerBusy)
	}
	groups, err := consumerGroups(it, name)
	if err != nil {
		return eventhubs.HubInfo{}, err
	}
	return eventhubs.HubInfo{Name: name, CreatedAt: it.CreatedAt, PartitionCount: len(ends), ConsumerGroups: groups}, nil
}

// consumerGroups are the consumer groups of hub besides $Default, the one
// the connection route names: one per CustomEndpoint destination reading
// hub, named by the destination's id. Fabric's portal shows each custom
// endpoint destination a GUID as its consumer group (fabric-docs "Add a
// custom endpoint or custom app destination", Basics page) without saying
// which; the emulator's is the destination's id, which the topology route
// answers.
func consumerGroups(it store.Item, hub string) ([]string, error) {
	m, err := eventstream.Decode(it)
	if err != nil {
		return nil, fmt.Errorf("read eventstream %s: %w", it.ID, err)
	}
	if m.Custom == nil {
		return nil, nil
	}
	var groups []string
	for _, id := range m.Custom.Destinations {
		if topic, err := control.EndpointTopic(m, id); err == nil && topic == hub {
			groups = append(groups, id)
		}
	}
	return groups, nil
}

// PartitionInfo implements eventhubs.Host from the partition's offsets
// and its last record.
func (h ehHost) PartitionInfo(ctx context.Context, hub string, partition int) (eventhubs.PartitionInfo, error) {
	if _, _, err := h.hubOf(ctx, hub); err != nil {
		return eventhubs.PartitionInfo{}, err
	}
	p := int32(partition)
	b, err := h.s.broker.Consume(ctx, hub, broker.Range{Start: map[int32]int64{p: broker.Earliest}, DefaultStart: broker.Latest,
		End: map[int32]int64{p: broker.Earliest}, DefaultEnd: broker.Latest})
	if err != nil {
		return eventhubs.PartitionInfo{}, readError(hub, partition, err)
	}
	last, err := h.s.broker.LastRecord(ctx, hub, p)
	if err != nil {
		return eventhubs.PartitionInfo{}, readError(hub, partition, err)
	}
	info := eventhubs.PartitionInfo{BeginSequenceNumber: b.Next[p], LastSequenceNumber: b.Next[p] - 1, LastOffset: b.Next[p] - 1, Empty: true}
	if last != nil {
		info.LastSequenceNumber, info.LastOffset, info.LastEnqueuedTime = last.Offset, last.Offset, last.Timestamp.UTC()
		info.Empty = last.Offset < b.Next[p]
	}
	return info, nil
}

// readError words a failed read of a partition for the door.
func readError(hub string, partition int, err error) error {
	var up *broker.UnknownPartitionError
	if errors.As(err, &up) {
		return fmt.Errorf("the event hub '%s' has no partition %d: %w", hub, partition, eventhubs.ErrNotFound)
	}
	return fmt.Errorf("read %s partition %d: %v: %w", hub, partition, err, eventhubs.ErrServerBusy)
}

// ehReadBytes is what a receiver's read takes of its partition per Fetch:
// a read is at most 1,024 events (and no more than the client's credit),
// and a
// fetch of the partition's default 16 MiB decoded every event up to there
// to keep those few (1,800 events/s read back from a 50,000-event
// partition).
const ehReadBytes = 256 << 10

// Read implements eventhubs.Host: up to max records of a partition from
// a position.
func (h ehHost) Read(ctx context.Context, hub, _ string, partition int, from eventhubs.Position, max int) ([]eventhubs.StoredEvent, error) {
	if err := h.s.injectEventHubs(ctx, hubItem(hub), "", wire.FaultConsume); err != nil {
		return nil, err
	}
	p := int32(partition)
	start, err := h.startOf(ctx, hub, p, from)
	if err != nil {
		return nil, err
	}
	b, err := h.s.broker.Consume(ctx, hub, broker.Range{Start: map[int32]int64{p: start}, DefaultStart: broker.Latest,
		End: map[int32]int64{p: broker.Latest}, DefaultEnd: broker.Latest, MaxRecords: max,
		PartitionBytes: ehReadBytes})
	if err != nil {
		return nil, readError(hub, partition, err)
	}
	out := make([]eventhubs.StoredEvent, 0, len(b.Records))
	for _, r := range b.Records {
		out = append(out, storedEvent(r))
	}
	return out, nil
}

// startOf is the first offset a position reads.
func (h ehHost) startOf(ctx context.Context, hub string, p int32, from eventhubs.Position) (int64, error) {
	next := int64(1)
	if from.Inclusive {
		next = 0
	}
	switch from.Kind {
	case eventhubs.FromSequence, eventhubs.FromOffset:
		return max(from.Value+next, 0), nil
	case eventhubs.FromTime:
		t := from.Time
		if !from.Inclusive {
			t = t.Add(time.Millisecond)
		}
		at, err := h.s.broker.OffsetsAfter(ctx, hub, t)
		if err != nil {
			return 0, readError(hub, int(p), err)
		}
		if o, ok := at[p]; ok {
			return o, nil
		}
		return 0, readError(hub, int(p), &broker.UnknownPartitionError{Topic: hub, Partition: p})
	}
	return broker.Earliest, nil
}

var _ eventhubs.Host = ehHost{}
