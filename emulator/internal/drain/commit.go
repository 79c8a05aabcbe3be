package drain

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
)

// commitTimeout bounds one offset commit of the committer.
const commitTimeout = 10 * time.Second

// closeCommitWait is how long a closing drain waits for its last offsets
// to reach the group before it gives up on them (the sink's resume points
// make a lagging group harmless).
const closeCommitWait = 2 * time.Second

// committer commits a drain's delivered offsets to its consumer group off
// the delivery path: the sink's resume points already make a replay
// harmless, so the group's offsets are advisory and the next batch need
// not wait for them. At most one commit is in flight; offsets noted
// meanwhile are merged, the latest per partition winning, and committed
// together when it returns (issue 19: one round trip per batch was on the
// drain's critical path). flush waits until what was noted is committed:
// a drain flushes before it reports a failed write or a stop, and when it
// closes, so that the group's offsets are current whenever the drain is
// not moving.
type committer struct {
	adm   *kadm.Client
	group string
	topic string
	log   *slog.Logger
	ctx   context.Context // ends when the committer is abandoned
	quit  context.CancelFunc

	mu      sync.Mutex
	pending map[int32]int64 // noted, not yet taken by a commit
	running bool            // a commit goroutine is out
	idle    chan struct{}   // closed once no commit runs and nothing is pending
}

func newCommitter(adm *kadm.Client, group, topic string, log *slog.Logger) *committer {
	ctx, quit := context.WithCancel(context.Background())
	idle := make(chan struct{})
	close(idle)
	return &committer{adm: adm, group: group, topic: topic, log: log, ctx: ctx, quit: quit, idle: idle}
}

// note records that the offsets below next are delivered, per partition,
// and starts a commit unless one is in flight (which then takes them).
func (c *committer) note(next map[int32]int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.pending == nil {
		c.pending = make(map[int32]int64, len(next))
	}
	for p, o := range next {
		c.pending[p] = o
	}
	if c.running {
		return
	}
	c.running = true
	c.idle = make(chan struct{})
	go c.loop()
}

// loop commits what is pending until nothing is.
func (c *committer) loop() {
	for {
		c.mu.Lock()
		next := c.pending
		c.pending = nil
		if len(next) == 0 {
			c.running = false
			close(c.idle)
			c.mu.Unlock()
			return
		}
		c.mu.Unlock()
		offs := kadm.Offsets{}
		for p, o := range next {
			offs.AddOffset(c.topic, p, o, -1)
		}
		ctx, cancel := context.WithTimeout(c.ctx, commitTimeout)
		err := commit(ctx, c.adm, c.group, offs)
		cancel()
		if err != nil && c.ctx.Err() == nil {
			// Not fatal: the sink's resume points make a replay harmless.
			c.log.Warn("drain offset commit failed", "group", c.group, "err", err)
		}
	}
}

// flush waits until every offset noted so far has been committed (or its
// commit failed), or ctx ends.
func (c *committer) flush(ctx context.Context) {
	c.mu.Lock()
	idle := c.idle
	c.mu.Unlock()
	select {
	case <-idle:
	case <-ctx.Done():
	}
}

// close flushes for up to closeCommitWait, then abandons a commit still
// out.
func (c *committer) close() {
	ctx, cancel := context.WithTimeout(context.Background(), closeCommitWait)
	defer cancel()
	c.flush(ctx)
	c.quit()
}
