//go:build soak

package main

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/messaging/azeventhubs"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/sasl/plain"

	"github.com/fabrictest/fabrictest/emulator/wire"
	"github.com/fabrictest/fabrictest/fixtures/kafka"
)

// The soak (make soak; not part of make test): the binary on a data dir,
// in front of Apache Kafka, fed through its three doors at once (the HTTP
// Custom source, the custom endpoint's Kafka protocol with franz-go, its
// Event Hubs protocol with azeventhubs) while fault rules come and go and
// the process is SIGKILLed or stopped and started again through the first
// two thirds of the run. The last third is one process, whose resident
// memory and descriptors are compared after warm-up and at the end. Every
// acknowledged event must be in the Lakehouse table exactly once, an
// unacknowledged one at most once.

const (
	soakBatch   = 20                    // events per send
	soakPace    = 50 * time.Millisecond // each door sends a batch this often
	soakWarmUp  = 30 * time.Second      // before the final process's first figures
	soakSample  = 5 * time.Second       // between two readings of RSS and descriptors
	soakFaults  = 20 * time.Second      // about this long between two fault rules
	soakSlack   = 0.10                  // how much RSS and descriptors may grow after warm-up
	soakDrain   = 120 * time.Second     // for the table to catch up at the end
	soakDefault = 10 * time.Minute
)

// soakTarget is the process the producers send to.
type soakTarget struct {
	epoch   int
	pid     int
	c       *client
	conn    endpointConn // the source's connection
	produce string       // the HTTP source's events route
}

// soakSender sends one batch through one door.
type soakSender interface {
	send(ctx context.Context, ids []string, values [][]byte) error
	close()
}

// soakDoor sends batch after batch through one door to whichever process
// is up, each event once, and keeps its ledger.
type soakDoor struct {
	name string
	open func(soakTarget) (soakSender, error)

	mu   sync.Mutex
	led  *ledger
	errs map[string]int
}

func (d *soakDoor) run(target *atomic.Pointer[soakTarget], stop <-chan struct{}) {
	var s soakSender
	epoch := -1
	defer func() {
		if s != nil {
			s.close()
		}
	}()
	tick := time.NewTicker(soakPace)
	defer tick.Stop()
	for seq := 0; ; {
		select {
		case <-stop:
			return
		case <-tick.C:
		}
		tg := target.Load()
		if tg == nil {
			continue
		}
		if tg.epoch != epoch {
			if s != nil {
				s.close()
			}
			var err error
			if s, err = d.open(*tg); err != nil {
				d.note("open: " + err.Error())
				continue
			}
			epoch = tg.epoch
		}
		ids, values := soakEvents(d.name, seq)
		seq++
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		err := s.send(ctx, ids, values)
		cancel()
		d.mu.Lock()
		for _, id := range ids {
			if err == nil {
				d.led.acked[id] = true
			} else {
				d.led.unacked[id] = true
			}
		}
		d.mu.Unlock()
		if err != nil {
			d.note(err.Error())
		}
	}
}

// note counts an error by its first words.
func (d *soakDoor) note(msg string) {
	if len(msg) > 70 {
		msg = msg[:70]
	}
	d.mu.Lock()
	d.errs[msg]++
	d.mu.Unlock()
}

// soakEvents are batch seq of door: ids and JSON values carrying them.
func soakEvents(door string, seq int) ([]string, [][]byte) {
	ids, values := make([]string, soakBatch), make([][]byte, soakBatch)
	for i := range ids {
		ids[i] = fmt.Sprintf("%s%07d-%02d", door, seq, i)
		values[i], _ = json.Marshal(map[string]any{"id": ids[i], "door": door, "seq": seq})
	}
	return ids, values
}

type httpSender struct {
	c    *client
	path string
}

func (h httpSender) send(_ context.Context, _ []string, values [][]byte) error {
	evs := make([]any, len(values))
	for i, v := range values {
		evs[i] = map[string]any{"value": json.RawMessage(v)}
	}
	_, err := h.c.do("POST", h.path, map[string]any{"events": evs}, nil)
	return err
}

func (httpSender) close() {}

type kafkaSender struct{ cl *kgo.Client }

func openKafka(tg soakTarget) (soakSender, error) {
	cl, err := kgo.NewClient(kgo.SeedBrokers(tg.conn.FullyQualifiedNamespace), kgo.DefaultProduceTopic(tg.conn.EventHubName),
		kgo.SASL(plain.Auth{User: "$ConnectionString", Pass: tg.conn.AccessKeys.PrimaryConnectionString}.AsMechanism()),
		kgo.RecordDeliveryTimeout(10*time.Second), kgo.MetadataMinAge(time.Second))
	return kafkaSender{cl}, err
}

func (k kafkaSender) send(ctx context.Context, _ []string, values [][]byte) error {
	recs := make([]*kgo.Record, len(values))
	for i, v := range values {
		recs[i] = &kgo.Record{Value: v}
	}
	return k.cl.ProduceSync(ctx, recs...).FirstErr()
}

func (k kafkaSender) close() { k.cl.Close() }

type amqpSender struct{ pc *azeventhubs.ProducerClient }

// openAMQP makes a producer without retries: each event is sent once.
func openAMQP(tg soakTarget) (soakSender, error) {
	pc, err := azeventhubs.NewProducerClientFromConnectionString(tg.conn.AccessKeys.PrimaryConnectionString, "",
		&azeventhubs.ProducerClientOptions{RetryOptions: azeventhubs.RetryOptions{MaxRetries: -1}})
	return amqpSender{pc}, err
}

func (a amqpSender) send(ctx context.Context, _ []string, values [][]byte) error {
	b, err := a.pc.NewEventDataBatch(ctx, nil)
	if err != nil {
		return err
	}
	for _, v := range values {
		if err := b.AddEventData(&azeventhubs.EventData{Body: v}, nil); err != nil {
			return err
		}
	}
	return a.pc.SendEventDataBatch(ctx, b, nil)
}

func (a amqpSender) close() { a.pc.Close(context.Background()) }

// soakReading is one reading of a process's resident memory and descriptors.
type soakReading struct {
	at      time.Duration // since the soak started
	epoch   int
	rssKB   int64
	fds     int
	sinceUp time.Duration // since this process started
}

// readProc reads VmRSS and the descriptor count of pid.
func readProc(pid int) (int64, int, error) {
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, 0, err
	}
	var rss int64
	for _, l := range strings.Split(string(status), "\n") {
		if f := strings.Fields(l); len(f) >= 2 && f[0] == "VmRSS:" {
			rss, _ = strconv.ParseInt(f[1], 10, 64)
		}
	}
	fds, err := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
	return rss, len(fds), err
}

// soakRules are the faults the soak injects, one at a time.
func soakRules(lake string) []wire.FaultRule {
	produce := func(door string) wire.FaultTarget { return wire.FaultTarget{Door: door, Operation: wire.FaultProduce} }
	dest := wire.FaultTarget{Door: wire.FaultDoorDestination, Destination: lake}
	return []wire.FaultRule{
		{Target: produce(wire.FaultDoorREST), Effect: wire.FaultEffect{Kind: wire.FaultError, Status: 503}, Count: 3},
		{Target: produce(wire.FaultDoorREST), Effect: wire.FaultEffect{Kind: wire.FaultThrottle, RetryAfterSeconds: 1}, Count: 2},
		{Target: produce(wire.FaultDoorKafka), Effect: wire.FaultEffect{Kind: wire.FaultThrottle, ThrottleMs: 300}, Count: 3},
		{Target: produce(wire.FaultDoorKafka), Effect: wire.FaultEffect{Kind: wire.FaultDrop}, Count: 1},
		{Target: produce(wire.FaultDoorEventHubs), Effect: wire.FaultEffect{Kind: wire.FaultThrottle}, Count: 2},
		{Target: produce(wire.FaultDoorEventHubs), Effect: wire.FaultEffect{Kind: wire.FaultDrop}, Count: 1},
		{Target: dest, Effect: wire.FaultEffect{Kind: wire.FaultWriteFailure}, Count: 2},
		{Target: dest, Effect: wire.FaultEffect{Kind: wire.FaultLatency, LatencyMs: 500}, Count: 3},
	}
}

func soakDuration(t *testing.T) time.Duration {
	v := os.Getenv("FABRICTEST_SOAK_DURATION")
	if v == "" {
		return soakDefault
	}
	d, err := time.ParseDuration(v)
	if err != nil || d < time.Minute {
		t.Fatalf("FABRICTEST_SOAK_DURATION=%q: want a duration of a minute or more", v)
	}
	return d
}

// TestSoak runs the soak for FABRICTEST_SOAK_DURATION (10m by default).
func TestSoak(t *testing.T) {
	dur := soakDuration(t)
	ctx := context.Background()
	kc, err := kafka.Run(ctx, kafka.ImageFromEnv())
	if err != nil {
		t.Fatalf("start Apache Kafka: %v", err)
	}
	t.Cleanup(func() { _ = kc.Terminate(context.Background()) })
	brokers, err := kc.Brokers(ctx)
	if err != nil {
		t.Fatal(err)
	}
	bin := buildBinary(t)
	dir := t.TempDir()
	data, logPath := filepath.Join(dir, "data"), filepath.Join(dir, "emulator.log")
	start := time.Now()
	up := func(epoch int) (*proc, *soakTarget, time.Time) {
		p := startProc(t, bin, data, logPath, "--kafka", brokers[0])
		c := newClient(t, p.url)
		return p, &soakTarget{epoch: epoch, pid: p.cmd.Process.Pid, c: c}, time.Now()
	}
	p, tg, upAt := up(0)
	fx := setUpAMQP(t, tg.c)
	esBase, _, _ := strings.Cut(fx.src, "/sources/")
	fill := func(tg *soakTarget) {
		tg.conn = tg.c.connection(t, fx.src)
		tg.produce = strings.TrimSuffix(fx.src, "/connection") + "/events"
	}
	fill(tg)
	lake := ""
	for _, n := range tg.c.must(t, 200, "GET", esBase+"/topology", nil)["destinations"].([]any) {
		if m := n.(map[string]any); m["name"] == "lake" {
			lake = m["id"].(string)
		}
	}

	var target atomic.Pointer[soakTarget]
	target.Store(tg)
	doors := []*soakDoor{
		{name: "h", open: func(tg soakTarget) (soakSender, error) { return httpSender{tg.c, tg.produce}, nil }},
		{name: "k", open: openKafka},
		{name: "a", open: openAMQP},
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for _, d := range doors {
		d.led, d.errs = newLedger(), map[string]int{}
		wg.Add(1)
		go func() { defer wg.Done(); d.run(&target, stop) }()
	}
	var readings []soakReading
	var rmu sync.Mutex
	upAtNanos := atomic.Int64{}
	upAtNanos.Store(upAt.UnixNano())
	injected := map[string]int{}
	wg.Add(2)
	go func() { // readings
		defer wg.Done()
		for tick := time.NewTicker(soakSample); ; {
			select {
			case <-stop:
				tick.Stop()
				return
			case <-tick.C:
			}
			if tg := target.Load(); tg != nil {
				if rss, fds, err := readProc(tg.pid); err == nil {
					rmu.Lock()
					readings = append(readings, soakReading{at: time.Since(start), epoch: tg.epoch, rssKB: rss, fds: fds,
						sinceUp: time.Since(time.Unix(0, upAtNanos.Load()))})
					rmu.Unlock()
				}
			}
		}
	}()
	rng := rand.New(rand.NewSource(time.Now().UnixNano()))
	rules := soakRules(lake)
	go func() { // faults
		defer wg.Done()
		for {
			select {
			case <-stop:
				return
			case <-time.After(soakFaults/2 + time.Duration(rng.Int63n(int64(soakFaults)))):
			}
			if tg := target.Load(); tg != nil {
				r := rules[rng.Intn(len(rules))]
				if status, err := tg.c.do("POST", "/_emulator/faults", r, nil); status == 201 && err == nil {
					rmu.Lock()
					injected[r.Target.Door+" "+r.Effect.Kind]++
					rmu.Unlock()
				}
			}
		}
	}()

	// Restarts through the first two thirds, a SIGKILL then a clean stop.
	restartsUntil, kills, stops := start.Add(dur*2/3), 0, 0
	for epoch := 1; ; epoch++ {
		next := time.Now().Add(dur/12 + time.Duration(rng.Int63n(int64(dur/12))))
		if next.After(restartsUntil) {
			break
		}
		time.Sleep(time.Until(next))
		target.Store(nil)
		if epoch%2 == 1 {
			p.kill(t)
			kills++
		} else {
			p.stop(t, logPath)
			stops++
		}
		p, tg, upAt = up(epoch)
		upAtNanos.Store(upAt.UnixNano())
		fill(tg)
		target.Store(tg)
	}
	time.Sleep(time.Until(start.Add(dur)))
	close(stop)
	wg.Wait()

	all := newLedger()
	for _, d := range doors {
		for id := range d.led.acked {
			all.acked[id] = true
		}
		for id := range d.led.unacked {
			all.unacked[id] = true
		}
		t.Logf("door %s: %d acknowledged, %d unacknowledged; errors %v", d.name, len(d.led.acked), len(d.led.unacked), d.errs)
	}
	t.Logf("%s: %d SIGKILLs, %d clean stops; fault rules injected: %v", dur, kills, stops, injected)
	waitDrainedFor(t, fx.tableDir, all, soakDrain)
	final := soakFigures(t, readings)
	p.stop(t, logPath)
	ids, version, err := tableIDs(fx.tableDir)
	if err != nil {
		t.Fatalf("read the table: %v; log:\n%s", err, tail(logPath))
	}
	lost, dup := soakCount(all, ids)
	t.Logf("table version %d: %d rows; acknowledged-lost %d, duplicates %d", version, len(ids), lost, dup)
	if bad := exactlyOnce(all, ids, 20); len(bad) > 0 {
		t.Errorf("%d rows, %d acknowledged events:\n%v", len(ids), len(all.acked), bad)
	}
	if final != "" {
		t.Error(final)
	}
}

// soakCount counts the acknowledged events missing from ids and the ids
// that are there more than once.
func soakCount(led *ledger, ids []string) (lost, dup int) {
	seen := map[string]int{}
	for _, id := range ids {
		seen[id]++
	}
	for id := range led.acked {
		if seen[id] == 0 {
			lost++
		}
	}
	for _, n := range seen {
		if n > 1 {
			dup += n - 1
		}
	}
	return lost, dup
}

// soakFigures logs every reading and compares the final process's first
// reading after warm-up with its last; it returns the failure, or "".
func soakFigures(t *testing.T, rs []soakReading) string {
	t.Helper()
	for _, r := range rs {
		t.Logf("reading at %6s: process %d (up %6s): RSS %6d KiB, %3d descriptors",
			r.at.Round(time.Second), r.epoch, r.sinceUp.Round(time.Second), r.rssKB, r.fds)
	}
	if len(rs) == 0 {
		return "no reading of the process"
	}
	last := rs[len(rs)-1]
	var warm *soakReading
	for i := range rs {
		if rs[i].epoch == last.epoch && rs[i].sinceUp >= soakWarmUp {
			warm = &rs[i]
			break
		}
	}
	if warm == nil || warm == &rs[len(rs)-1] {
		return "the final process did not live past its warm-up"
	}
	t.Logf("final process: after warm-up (%s) RSS %d KiB, %d descriptors; at the end (%s) RSS %d KiB, %d descriptors",
		warm.sinceUp.Round(time.Second), warm.rssKB, warm.fds, last.sinceUp.Round(time.Second), last.rssKB, last.fds)
	if float64(last.rssKB) > float64(warm.rssKB)*(1+soakSlack) || float64(last.fds) > float64(warm.fds)*(1+soakSlack) {
		return fmt.Sprintf("the final process grew by more than %.0f%% after warm-up: RSS %d → %d KiB, descriptors %d → %d",
			soakSlack*100, warm.rssKB, last.rssKB, warm.fds, last.fds)
	}
	return ""
}
