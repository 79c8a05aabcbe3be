package fabrictest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

// Eventstream is a Fabric Eventstream in the environment, with the ids a
// notebook passes as eventstream.itemid and eventstream.datasourceid and the
// Kafka topic behind its DefaultStream.
type Eventstream struct {
	// ID is the item id (the notebook's eventstream.itemid).
	ID string
	// WorkspaceID is the workspace the item lives in.
	WorkspaceID string
	// Name is the display name.
	Name string
	// DatasourceID is the DefaultStream's id (eventstream.datasourceid).
	DatasourceID string
	// Topic is the Kafka topic, {ID}.{DatasourceID}.
	Topic string

	handle
}

func (es Eventstream) itemPath() string {
	return "/v1/workspaces/" + url.PathEscape(es.WorkspaceID) + "/eventstreams/" + url.PathEscape(es.ID)
}

// sourcePath is the notebook-side path of the datasource (resolve, consume).
func (es Eventstream) sourcePath() string {
	return "/v1/eventstreams/" + url.PathEscape(es.ID) + "/sources/" + url.PathEscape(es.DatasourceID)
}

// ------------------------------------------------------------------ produce

// Event is one event for the Custom HTTP source. Key and Value are sent as
// Kafka bytes: a string or []byte as its bytes (which must be valid UTF-8:
// the source's body is JSON), a json.RawMessage as that JSON's compact text
// (a JSON string as its text), nil as a Kafka null (no key; a tombstone
// value), anything else as its JSON encoding.
type Event struct {
	// Key is the record key; nil sends none.
	Key any
	// Value is the record value; nil sends a Kafka null (a tombstone).
	Value any
	// Headers are sent in order; names may repeat.
	Headers []Header
	// Timestamp is the record timestamp; zero lets the emulator use now.
	Timestamp time.Time
}

// ProduceResult is the Custom HTTP source's answer: where every event landed.
type ProduceResult struct {
	// Produced is the number of events written.
	Produced int `json:"produced"`
	// Topic is the Kafka topic written to.
	Topic string `json:"topic"`
	// Partitions summarises the offsets written, per partition.
	Partitions []PartitionRange `json:"partitions"`
	// Events gives each event's partition and offset, in request order.
	Events []Position `json:"events"`
}

// PartitionRange is the span of offsets one produce wrote in a partition.
type PartitionRange struct {
	// Partition is the partition number.
	Partition int32 `json:"partition"`
	// FirstOffset is the lowest offset written.
	FirstOffset int64 `json:"firstOffset"`
	// LastOffset is the highest offset written (inclusive).
	LastOffset int64 `json:"lastOffset"`
	// Count is the number of events written to the partition.
	Count int `json:"count"`
}

// Position is where one event landed.
type Position struct {
	// Partition is the partition number.
	Partition int32 `json:"partition"`
	// Offset is the record's offset.
	Offset int64 `json:"offset"`
}

// Produce sends events through the Eventstream's Custom HTTP source in one
// request and fails the test unless the emulator answers 2xx. Each event is
// an Event, or a bare value sent as the record value with no key (see Event
// for how values become bytes: a string as its text, a map as JSON).
//
//	es.Produce(fabrictest.Event{Key: "o-1", Value: map[string]any{"amount": 12.5}}, "plain text")
func (es Eventstream) Produce(events ...any) ProduceResult {
	es.env.t.Helper()
	res, err := es.TryProduce(events...)
	if err != nil {
		es.env.t.Fatalf("fabrictest: produce %d event(s) to eventstream %s: %v", len(events), es.ID, err)
	}
	return res
}

// ProduceJSON sends each value JSON-encoded as the value of one event (no
// key): unlike Produce, a string becomes a JSON string literal, quotes
// included. It fails the test unless the emulator answers 2xx.
func (es Eventstream) ProduceJSON(values ...any) ProduceResult {
	es.env.t.Helper()
	events := make([]any, len(values))
	for i, v := range values {
		b, err := json.Marshal(v)
		if err != nil {
			es.env.t.Fatalf("fabrictest: ProduceJSON: value %d: %v", i, err)
		}
		events[i] = Event{Value: b}
	}
	return es.Produce(events...)
}

// ProduceRaw sends one event with these key and value bytes (nil key: none;
// nil value: a tombstone) and headers, and fails the test unless the
// emulator answers 2xx. The Custom HTTP source carries text: bytes that are
// not valid UTF-8 fail the test before anything is sent.
func (es Eventstream) ProduceRaw(key, value []byte, headers ...Header) ProduceResult {
	es.env.t.Helper()
	ev := Event{Value: value, Headers: headers}
	if key != nil {
		ev.Key = key
	}
	return es.Produce(ev)
}

// TryProduce is Produce that returns the error (an *APIError when the
// emulator refuses, such as 403 InsufficientPrivileges for a Viewer)
// instead of failing the test.
func (es Eventstream) TryProduce(events ...any) (ProduceResult, error) {
	body, err := produceBody(events)
	if err != nil {
		return ProduceResult{}, err
	}
	var out ProduceResult
	_, err = es.env.do(http.MethodPost, es.itemPath()+"/sources/"+url.PathEscape(es.DatasourceID)+"/events", nil, body, 0, &out)
	return out, err
}

// produceBody renders events as {"events": [{key?, value, headers?, timestamp?}]}.
func produceBody(events []any) (json.RawMessage, error) {
	if len(events) == 0 {
		return nil, errors.New("produce: no events")
	}
	type headerJSON struct {
		Key   string  `json:"key"`
		Value *string `json:"value"`
	}
	type eventJSON struct {
		Key       json.RawMessage `json:"key,omitempty"`
		Value     json.RawMessage `json:"value"`
		Headers   []headerJSON    `json:"headers,omitempty"`
		Timestamp *int64          `json:"timestamp,omitempty"`
	}
	out := make([]eventJSON, len(events))
	for i, raw := range events {
		var ev Event
		switch v := raw.(type) {
		case Event:
			ev = v
		case *Event:
			ev = *v
		default:
			ev = Event{Value: raw}
		}
		field := fmt.Sprintf("events[%d]", i)
		var err error
		if out[i].Value, err = payload(ev.Value, field+".value"); err != nil {
			return nil, err
		}
		if ev.Key != nil {
			if out[i].Key, err = payload(ev.Key, field+".key"); err != nil {
				return nil, err
			}
		}
		for j, h := range ev.Headers {
			hj := headerJSON{Key: h.Key}
			if h.Value != nil {
				if !utf8.Valid(h.Value) {
					return nil, fmt.Errorf("produce: %s.headers[%d] (%q): value is not valid UTF-8, which the Custom HTTP source cannot carry", field, j, h.Key)
				}
				s := string(h.Value)
				hj.Value = &s
			}
			out[i].Headers = append(out[i].Headers, hj)
		}
		if !ev.Timestamp.IsZero() {
			ms := ev.Timestamp.UnixMilli()
			out[i].Timestamp = &ms
		}
	}
	return json.Marshal(map[string]any{"events": out})
}

// payload renders a key or value for the produce body (see Event).
func payload(v any, field string) (json.RawMessage, error) {
	switch x := v.(type) {
	case nil:
		return json.RawMessage("null"), nil
	case json.RawMessage:
		if x == nil {
			return json.RawMessage("null"), nil
		}
		if !json.Valid(x) {
			return nil, fmt.Errorf("produce: %s: json.RawMessage is not valid JSON: %s", field, snippet(x))
		}
		return x, nil
	case []byte:
		if x == nil {
			return json.RawMessage("null"), nil
		}
		if !utf8.Valid(x) {
			return nil, fmt.Errorf("produce: %s: %d bytes that are not valid UTF-8; the Custom HTTP source's JSON body carries text only (produce binary data through the Kafka protocol, see Eventstream.Resolve)", field, len(x))
		}
		return json.Marshal(string(x))
	case string:
		return json.Marshal(x)
	default:
		b, err := json.Marshal(x)
		if err != nil {
			return nil, fmt.Errorf("produce: %s: %w", field, err)
		}
		return b, nil
	}
}

// ------------------------------------------------------------------ consume

// ConsumeOption shapes an HTTP consume (the query of the consume route).
type ConsumeOption func(*consumeQuery)

type consumeQuery struct {
	values url.Values
	wait   time.Duration
}

// StartingOffsets sets where the read starts, in Spark's forms: "earliest"
// (the default), "latest", or JSON such as {"<topic>":{"0":42}} with -2 for
// earliest and -1 for latest.
func StartingOffsets(spec string) ConsumeOption {
	return func(q *consumeQuery) { q.values.Set("startingOffsets", spec) }
}

// EndingOffsets sets where the read stops, in Spark's forms: "latest" (the
// default: the high watermark when the read starts) or JSON. Offsets not
// written yet are waited for, up to ConsumeTimeout.
func EndingOffsets(spec string) ConsumeOption {
	return func(q *consumeQuery) { q.values.Set("endingOffsets", spec) }
}

// MaxRecords caps the records returned (default 100,000).
func MaxRecords(n int) ConsumeOption {
	return func(q *consumeQuery) { q.values.Set("maxRecords", strconv.Itoa(n)) }
}

// ConsumeTimeout bounds how long the emulator waits for offsets not written
// yet (default 10 s).
func ConsumeTimeout(d time.Duration) ConsumeOption {
	return func(q *consumeQuery) {
		q.values.Set("timeoutMs", strconv.FormatInt(d.Milliseconds(), 10))
		q.wait = d
	}
}

// Consume reads the Eventstream through the emulator's HTTP consume route
// (GET /v1/eventstreams/{id}/sources/{ds}/events), every partition from
// earliest to the latest offset unless options say otherwise, and fails the
// test unless the emulator answers 2xx. Records come in partition, then
// offset order.
func (es Eventstream) Consume(opts ...ConsumeOption) Records {
	es.env.t.Helper()
	rs, err := es.TryConsume(opts...)
	if err != nil {
		es.env.t.Fatalf("fabrictest: consume eventstream %s: %v", es.ID, err)
	}
	return rs
}

// TryConsume is Consume that returns the error (an *APIError for a refused
// call, such as 404 ItemNotFound) instead of failing the test.
func (es Eventstream) TryConsume(opts ...ConsumeOption) (Records, error) {
	q := consumeQuery{values: url.Values{}, wait: 10 * time.Second}
	for _, o := range opts {
		o(&q)
	}
	var out ConsumeAnswer
	if _, err := es.env.do(http.MethodGet, es.sourcePath()+"/events", q.values, nil, q.wait, &out); err != nil {
		return nil, err
	}
	rs := out.Value
	sortRecords(rs)
	return rs, nil
}

// ConsumeFunc returns TryConsume as a function for gomega's Eventually:
//
//	Eventually(es.ConsumeFunc()).WithTimeout(5 * time.Second).Should(fabrictest.HaveRecordCount(3))
func (es Eventstream) ConsumeFunc(opts ...ConsumeOption) func() (Records, error) {
	return func() (Records, error) { return es.TryConsume(opts...) }
}

// ------------------------------------------------------------------ Kafka side

// Source is what the Spark resolve route answers for the Eventstream: the
// Kafka bootstrap servers and topic a notebook's eventstream.* options
// stand for.
type Source struct {
	// ItemID is the Eventstream's item id.
	ItemID string `json:"itemId"`
	// DatasourceID is the stream's datasource id.
	DatasourceID string `json:"datasourceId"`
	// WorkspaceID is the item's workspace.
	WorkspaceID string `json:"workspaceId"`
	// BootstrapServers is the comma-separated broker list.
	BootstrapServers string `json:"bootstrapServers"`
	// Topic is the Kafka topic.
	Topic string `json:"topic"`
	// SecurityProtocol is the Kafka security protocol, such as PLAINTEXT.
	SecurityProtocol string `json:"securityProtocol"`
}

// Brokers returns BootstrapServers as a list.
func (s Source) Brokers() []string {
	var out []string
	for _, b := range strings.Split(s.BootstrapServers, ",") {
		if b = strings.TrimSpace(b); b != "" {
			out = append(out, b)
		}
	}
	return out
}

// Resolve asks the emulator what a notebook's eventstream.itemid and
// eventstream.datasourceid resolve to (GET /v1/eventstreams/{id}/sources/{ds})
// and fails the test unless it answers 2xx.
func (es Eventstream) Resolve() Source {
	es.env.t.Helper()
	s, err := es.TryResolve()
	if err != nil {
		es.env.t.Fatalf("fabrictest: resolve eventstream %s: %v", es.ID, err)
	}
	return s
}

// TryResolve is Resolve that returns the error (an *APIError, such as 404
// ItemNotFound for a wrong id) instead of failing the test.
func (es Eventstream) TryResolve() (Source, error) {
	var s Source
	_, err := es.env.do(http.MethodGet, es.sourcePath(), nil, nil, 0, &s)
	return s, err
}

// Records reads every record of the Eventstream through the Kafka protocol,
// as a notebook does: it resolves the bootstrap servers and topic, then a
// franz-go consumer reads every partition from its start offset to the end
// offset it had when the call began. It fails the test on any error.
// Records come in partition, then offset order.
func (es Eventstream) Records() Records {
	es.env.t.Helper()
	rs, err := es.TryRecords()
	if err != nil {
		es.env.t.Fatalf("fabrictest: read eventstream %s through Kafka: %v", es.ID, err)
	}
	return rs
}

// TryRecords is Records that returns the error instead of failing the test.
// As a method value it drops into gomega's Eventually:
//
//	Eventually(es.TryRecords).Should(fabrictest.HaveRecordCount(3))
func (es Eventstream) TryRecords() (Records, error) {
	src, err := es.TryResolve()
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(es.env.ctx, es.env.c.cfg.callTimeout)
	defer cancel()
	return readTopic(ctx, src.Brokers(), src.Topic)
}

// readTopic reads topic from each partition's start to its end offset at
// the time of the call.
func readTopic(ctx context.Context, brokers []string, topic string) (Records, error) {
	if len(brokers) == 0 {
		return nil, fmt.Errorf("read topic %s: no bootstrap servers", topic)
	}
	cl, err := kgo.NewClient(kgo.SeedBrokers(brokers...), kgo.DialTimeout(5*time.Second))
	if err != nil {
		return nil, fmt.Errorf("kafka client for %v: %w", brokers, err)
	}
	defer cl.Close()
	adm := kadm.NewClient(cl)
	starts, err := adm.ListStartOffsets(ctx, topic)
	if err == nil {
		err = starts.Error()
	}
	if err != nil {
		return nil, fmt.Errorf("list start offsets of %s on %v: %w", topic, brokers, err)
	}
	ends, err := adm.ListEndOffsets(ctx, topic)
	if err == nil {
		err = ends.Error()
	}
	if err != nil {
		return nil, fmt.Errorf("list end offsets of %s on %v: %w", topic, brokers, err)
	}
	want := map[int32]int64{} // partition → end offset still to reach
	from := map[int32]kgo.Offset{}
	ends.Each(func(o kadm.ListedOffset) {
		start := int64(0)
		if s, ok := starts.Lookup(topic, o.Partition); ok {
			start = s.Offset
		}
		if o.Offset > start {
			want[o.Partition] = o.Offset
			from[o.Partition] = kgo.NewOffset().At(start)
		}
	})
	if len(want) == 0 {
		return Records{}, nil
	}
	cl.AddConsumePartitions(map[string]map[int32]kgo.Offset{topic: from})
	var rs Records
	for len(want) > 0 {
		fetches := cl.PollFetches(ctx)
		if err := ctx.Err(); err != nil {
			return rs, fmt.Errorf("read %s: %d partition(s) not read to their end offset: %w", topic, len(want), err)
		}
		var ferr error
		fetches.EachError(func(t string, p int32, err error) {
			ferr = errors.Join(ferr, fmt.Errorf("fetch %s[%d]: %w", t, p, err))
		})
		if ferr != nil {
			return rs, ferr
		}
		fetches.EachRecord(func(r *kgo.Record) {
			end, ok := want[r.Partition]
			if !ok || r.Offset >= end {
				return
			}
			rec := Record{Key: r.Key, Value: r.Value, Topic: r.Topic, Partition: r.Partition, Offset: r.Offset,
				Timestamp: r.Timestamp, TimestampType: int(r.Attrs.TimestampType())}
			if rec.TimestampType < 0 {
				rec.TimestampType = 0
			}
			for _, h := range r.Headers {
				rec.Headers = append(rec.Headers, Header{Key: h.Key, Value: h.Value})
			}
			rs = append(rs, rec)
			if r.Offset+1 >= end {
				delete(want, r.Partition)
			}
		})
	}
	sortRecords(rs)
	return rs, nil
}

// ------------------------------------------------------------------ lifecycle

// Delete deletes the Eventstream (and its Kafka topic) and fails the test
// unless the emulator answers 2xx.
func (es Eventstream) Delete() {
	es.env.t.Helper()
	if err := es.TryDelete(); err != nil {
		es.env.t.Fatalf("fabrictest: delete eventstream %s: %v", es.ID, err)
	}
}

// TryDelete is Delete that returns the error instead of failing the test.
func (es Eventstream) TryDelete() error {
	_, err := es.env.do(http.MethodDelete, es.itemPath(), nil, nil, 0, nil)
	return err
}
