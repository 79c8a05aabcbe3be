package main

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/messaging/azeventhubs"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/sasl/plain"
)

// The SIGKILL test of the Event Hubs door: an AMQP producer (azeventhubs,
// unchanged but for no retries, so that each event is sent once) sends
// batches to a CustomEndpoint source while the process is SIGKILLed and
// restarted on the same data dir. Every event the door acknowledged must
// then be in the Eventstream's topic (read through the Kafka endpoint)
// and in the Lakehouse table exactly once; an unacknowledged one at most
// once.

const amqpKillRounds = 2

// amqpFixture is the deployed Eventstream: the source's and the custom
// endpoint destination's connection routes, and the table's directory.
type amqpFixture struct {
	src, out string // …/sources/{id}/connection, …/destinations/{id}/connection
	tableDir string
}

// amqpTopology: a CustomEndpoint source into the DefaultStream, to a
// CustomEndpoint destination and to a Lakehouse table committing each batch.
func amqpTopology(ws, lh string) map[string]any {
	return map[string]any{
		"sources": []any{map[string]any{"name": "app", "type": "CustomEndpoint", "properties": map[string]any{}}},
		"streams": []any{map[string]any{"name": "s", "type": "DefaultStream", "properties": map[string]any{}, "inputNodes": []any{map[string]any{"name": "app"}}}},
		"destinations": []any{
			map[string]any{"name": "out", "type": "CustomEndpoint", "properties": map[string]any{}, "inputNodes": []any{map[string]any{"name": "s"}}},
			map[string]any{"name": "lake", "type": "Lakehouse", "properties": map[string]any{"workspaceId": ws, "itemId": lh,
				"deltaTable": "events", "minimumRows": 1}, "inputNodes": []any{map[string]any{"name": "s"}}},
		},
	}
}

func setUpAMQP(t *testing.T, c *client) amqpFixture {
	t.Helper()
	ws := c.must(t, 201, "POST", "/v1/workspaces", map[string]any{"displayName": "sigkill-amqp"})["id"].(string)
	base := "/v1/workspaces/" + ws
	lh := c.must(t, 201, "POST", base+"/lakehouses", map[string]any{"displayName": "sigkill"})
	topo, _ := json.Marshal(amqpTopology(ws, lh["id"].(string)))
	def := map[string]any{"parts": []any{map[string]any{"path": "eventstream.json",
		"payload": base64.StdEncoding.EncodeToString(topo), "payloadType": "InlineBase64"}}}
	es := c.must(t, 201, "POST", base+"/eventstreams", map[string]any{"displayName": "sigkill", "definition": def})
	esBase := base + "/eventstreams/" + es["id"].(string)
	tp := c.must(t, 200, "GET", esBase+"/topology", nil)
	idOf := func(list, name string) string {
		for _, n := range tp[list].([]any) {
			if m := n.(map[string]any); m["name"] == name {
				return m["id"].(string)
			}
		}
		t.Fatalf("no %s node %q in %v", list, name, tp)
		return ""
	}
	tables := lh["properties"].(map[string]any)["x-fabrictest-localTablesPath"].(string)
	return amqpFixture{
		src:      esBase + "/sources/" + idOf("sources", "app") + "/connection",
		out:      esBase + "/destinations/" + idOf("destinations", "out") + "/connection",
		tableDir: filepath.Join(tables, "events"),
	}
}

// endpointConn is the part of a connection answer the test uses.
type endpointConn struct {
	FullyQualifiedNamespace string `json:"fullyQualifiedNamespace"`
	EventHubName            string `json:"eventHubName"`
	AccessKeys              struct {
		PrimaryConnectionString string `json:"primaryConnectionString"`
	} `json:"accessKeys"`
}

func (c *client) connection(t *testing.T, path string) endpointConn {
	t.Helper()
	var ec endpointConn
	if status, err := c.do("GET", path, nil, &ec); err != nil || status != 200 {
		t.Fatalf("GET %s: %d %v", path, status, err)
	}
	return ec
}

// amqpProducer sends batches with azeventhubs to whichever process is up.
type amqpProducer struct {
	mu    sync.Mutex
	conn  string // the source's connection string; "" while the process is down
	epoch int
	led   *ledger
	acked atomic.Int64
	per   map[int]int
	errs  map[string]int
}

func (p *amqpProducer) set(conn string, epoch int) {
	p.mu.Lock()
	p.conn, p.epoch = conn, epoch
	p.mu.Unlock()
}

func (p *amqpProducer) current() (string, int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.conn, p.epoch
}

// run sends batches until stop is closed, each event once, a new
// ProducerClient per process.
func (p *amqpProducer) run(stop <-chan struct{}) {
	var pc *azeventhubs.ProducerClient
	pcEpoch := -1
	defer func() {
		if pc != nil {
			pc.Close(context.Background())
		}
	}()
	for seq := 0; ; seq++ {
		select {
		case <-stop:
			return
		default:
		}
		conn, epoch := p.current()
		if conn == "" {
			time.Sleep(10 * time.Millisecond)
			seq--
			continue
		}
		if epoch != pcEpoch {
			if pc != nil {
				pc.Close(context.Background())
			}
			var err error
			pc, err = azeventhubs.NewProducerClientFromConnectionString(conn, "",
				&azeventhubs.ProducerClientOptions{RetryOptions: azeventhubs.RetryOptions{MaxRetries: -1}})
			if err != nil {
				p.errs["client: "+err.Error()]++
				time.Sleep(50 * time.Millisecond)
				seq--
				continue
			}
			pcEpoch = epoch
		}
		ids, err := p.send(pc, seq)
		for _, id := range ids {
			if err == nil {
				p.led.acked[id] = true
			} else {
				p.led.unacked[id] = true
			}
		}
		if err == nil {
			p.per[epoch] += len(ids)
			p.acked.Add(int64(len(ids)))
		} else {
			p.errs[fmt.Sprintf("epoch %d send", epoch)]++
		}
	}
}

// send sends batch seq; the ids are those it carried, nil when the batch
// could not be made (nothing sent).
func (p *amqpProducer) send(pc *azeventhubs.ProducerClient, seq int) ([]string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	b, err := pc.NewEventDataBatch(ctx, nil)
	if err != nil {
		return nil, err
	}
	ids, events := batch(seq)
	for _, ev := range events {
		body, _ := json.Marshal(ev.(map[string]any)["value"])
		if err := b.AddEventData(&azeventhubs.EventData{Body: body}, nil); err != nil {
			return nil, err
		}
	}
	return ids, pc.SendEventDataBatch(ctx, b, nil)
}

// TestSIGKILLAMQPAcknowledged: every event an AMQP producer had
// acknowledged is in the topic and the Lakehouse table exactly once after
// amqpKillRounds SIGKILLs and restarts on the same data dir.
func TestSIGKILLAMQPAcknowledged(t *testing.T) {
	bin := buildBinary(t)
	dir := t.TempDir()
	data, logPath := filepath.Join(dir, "data"), filepath.Join(dir, "emulator.log")
	p := startProc(t, bin, data, logPath)
	c := newClient(t, p.url)
	fx := setUpAMQP(t, c)
	pr := &amqpProducer{led: newLedger(), per: map[int]int{}, errs: map[string]int{}}
	pr.set(c.connection(t, fx.src).AccessKeys.PrimaryConnectionString, 0)
	stop, stopped := make(chan struct{}), make(chan struct{})
	var once sync.Once
	halt := func() { once.Do(func() { close(stop) }); <-stopped }
	go func() { pr.run(stop); close(stopped) }()
	t.Cleanup(halt)

	for round := 1; round <= amqpKillRounds; round++ {
		waitAcked(t, pr, pr.acked.Load()+200, logPath)
		pr.set("", round)
		p.kill(t)
		p = startProc(t, bin, data, logPath)
		c = newClient(t, p.url)
		pr.set(c.connection(t, fx.src).AccessKeys.PrimaryConnectionString, round) // the port is a new one
	}
	waitAcked(t, pr, pr.acked.Load()+200, logPath)
	halt()
	t.Logf("%d acknowledged, %d unacknowledged events; acknowledged by process: %v; failures: %v",
		len(pr.led.acked), len(pr.led.unacked), pr.per, pr.errs)
	for round := 0; round <= amqpKillRounds; round++ {
		if pr.per[round] == 0 {
			t.Errorf("process %d acknowledged no event", round)
		}
	}

	topicIDs := readTopicIDs(t, c.connection(t, fx.out))
	if bad := exactlyOnce(pr.led, topicIDs, 20); len(bad) > 0 {
		t.Errorf("topic: %d records, %d acknowledged events:\n%v", len(topicIDs), len(pr.led.acked), bad)
	}
	waitDrained(t, fx.tableDir, pr.led)
	p.stop(t, logPath)
	ids, version, err := tableIDs(fx.tableDir)
	if err != nil {
		t.Fatalf("read the table: %v; log:\n%s", err, tail(logPath))
	}
	t.Logf("topic holds %d records, table version %d holds %d rows", len(topicIDs), version, len(ids))
	if bad := exactlyOnce(pr.led, ids, 20); len(bad) > 0 {
		t.Fatalf("table: %d rows, %d acknowledged events:\n%v\nlog:\n%s", len(ids), len(pr.led.acked), bad, tail(logPath))
	}
}

// waitAcked waits (bounded) until the producer has n acknowledged events.
func waitAcked(t *testing.T, pr *amqpProducer, n int64, logPath string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for pr.acked.Load() < n {
		if time.Now().After(deadline) {
			t.Fatalf("%d of %d events acknowledged after 30 s; log:\n%s", pr.acked.Load(), n, tail(logPath))
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// readTopicIDs reads the whole topic through the Kafka endpoint with the
// destination's string: the id of every record's JSON value.
func readTopicIDs(t *testing.T, ec endpointConn) []string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cl, err := kgo.NewClient(kgo.SeedBrokers(ec.FullyQualifiedNamespace),
		kgo.SASL(plain.Auth{User: "$ConnectionString", Pass: ec.AccessKeys.PrimaryConnectionString}.AsMechanism()),
		kgo.ConsumeTopics(ec.EventHubName), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	ends, err := kadm.NewClient(cl).ListEndOffsets(ctx, ec.EventHubName)
	if err != nil || ends.Error() != nil {
		t.Fatalf("list end offsets: %v %v", err, ends.Error())
	}
	left := map[int32]int64{}
	ends.Each(func(o kadm.ListedOffset) {
		if o.Offset > 0 {
			left[o.Partition] = o.Offset
		}
	})
	var ids []string
	for len(left) > 0 {
		fs := cl.PollFetches(ctx)
		if err := fs.Err0(); err != nil {
			t.Fatalf("fetch after %d records (%v left): %v", len(ids), left, err)
		}
		fs.EachRecord(func(r *kgo.Record) {
			var v struct{ ID string }
			_ = json.Unmarshal(r.Value, &v)
			ids = append(ids, v.ID)
			if r.Offset+1 >= left[r.Partition] {
				delete(left, r.Partition)
			}
		})
	}
	return ids
}
