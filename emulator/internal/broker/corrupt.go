package broker

import (
	"log/slog"
	"sync"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// CheckCompressedBatches makes the kfake cluster c refuse what Apache
// Kafka's broker refuses and kfake does not check: a compressed record
// batch that does not decompress to the records it declares. Such a
// partition of a produce is answered UNKNOWN_SERVER_ERROR, as Apache Kafka
// 3.9 answers it (Apache Kafka sends no error message; this check sends
// the reason), and nothing of it is appended; the other partitions of the
// same request are appended as usual. Every client is checked, straight to
// the broker or through the custom endpoint. Without it one such batch
// would stop every reader of its partition. Refusals are logged to log
// (nil: none).
//
// Embedded calls it; it is exported for tests that run their own kfake
// cluster as the emulator's. Such a test must not delay produce requests
// with controls of its own (kfake.SleepControl): the check takes each
// produce to be handled before the next one comes.
func CheckCompressedBatches(c *kfake.Cluster, log *slog.Logger) {
	checkBatches(c, log)
}

// checkBatches is CheckCompressedBatches, returning the check so that the
// broker can tell it which producers are its own (trust).
func checkBatches(c *kfake.Cluster, log *slog.Logger) *batchCheck {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	k := &batchCheck{c: c, log: log, own: map[int64]bool{}}
	c.ControlKey(int16(kmsg.Produce), k.control)
	return k
}

// batchCheck is the Produce control of CheckCompressedBatches. kfake runs
// controls one at a time on its request loop, before its own handling; the
// mutex only orders this state for the race detector.
//
// A control cannot add to kfake's answer, so a bad partition is answered
// through a fault (kfake.Fault) installed for that partition of that
// request alone, which kfake's produce handler answers in place of the
// append; the control itself never handles the request (it returns false),
// so kfake appends the good partitions and answers the whole request.
type batchCheck struct {
	c   *kfake.Cluster
	log *slog.Logger

	mu sync.Mutex
	// faults are those installed for the previous request: one its
	// handler did not reach (an unknown topic answered first) would wait
	// for a request that never comes again, so each call removes them.
	faults []*kfake.FaultHandle
	// prev is the previous request, already handled when the next one
	// comes (kfake handles produces one at a time). kfake keeps each
	// connection's last request for its control (lastReq), also after the
	// connection closes; prev's records are let go here so that what stays
	// behind is the request's shell, not its batches.
	prev *kmsg.ProduceRequest
	// own are the producer IDs of the emulator's own producers (trust):
	// their batches are franz-go's encoding of records the emulator
	// parsed, so they are not decompressed again to be checked.
	own map[int64]bool
}

// trust marks the batches of producer ID id as the emulator's own. Another
// client's batch is checked even if it claims that ID: kfake refuses a
// batch whose ID, epoch and sequence are not the next of that producer
// before appending anything, and a client that guessed all three would
// still have to compress its batch wrongly by accident.
func (k *batchCheck) trust(id int64) {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.own[id] = true
}

// trusted reports whether id is one of the emulator's own producers; k.mu
// is held.
func (k *batchCheck) trusted(id int64) bool { return k.own[id] }

// control checks every partition's batches of one produce and installs a
// fault for each partition that cannot be read; it never handles the
// request itself.
func (k *batchCheck) control(req kmsg.Request) (kmsg.Response, error, bool) {
	pr, ok := req.(*kmsg.ProduceRequest)
	if !ok {
		return nil, nil, false
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	if pr == k.prev { // already checked
		return nil, nil, false
	}
	k.forgetPrevious(pr)
	for _, t := range pr.Topics {
		for _, p := range t.Partitions {
			err := checkRecords(p.Records, k.trusted)
			if err == nil {
				continue
			}
			k.log.Warn("kafka broker: produce refused, compressed batch unreadable", "topic", t.Topic, "partition", p.Partition, "err", err)
			k.faults = append(k.faults, k.c.Fault(kfake.Fault{
				Keys:       []kmsg.Key{kmsg.Produce},
				Topic:      t.Topic,
				TopicID:    t.TopicID,
				Partitions: []int32{p.Partition},
				Err:        &kerr.Error{Message: err.Error(), Code: kerr.UnknownServerError.Code, Description: kerr.UnknownServerError.Description},
				Count:      1,
				When:       func(r kmsg.Request) bool { return r == req },
			}))
		}
	}
	return nil, nil, false
}

// forgetPrevious removes the faults left from the previous request, drops
// its records and makes pr the previous one.
func (k *batchCheck) forgetPrevious(pr *kmsg.ProduceRequest) {
	for _, h := range k.faults {
		h.Remove()
	}
	k.faults = k.faults[:0]
	if k.prev != nil {
		k.prev.Topics = nil
	}
	k.prev = pr
}
