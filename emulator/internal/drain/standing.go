package drain

import "context"

// standing is a drain's request to the pool kept across its ticks: while
// nothing comes, the drain ticks its sink and waits on the same request
// instead of asking anew, so an idle drain makes no new work for the fetch
// loop. Its positions cannot move meanwhile: only the drain's own loop
// moves them, after an answer, which ends the request.
type standing struct {
	pool *Pool
	w    *want
}

// poll waits until the pool's next beat for the records of topic from the
// drain's positions (read by from only when a new request is made).
func (s *standing) poll(ctx context.Context, topic string, from func() map[int32]int64) fetched {
	if s.w == nil {
		s.w = s.pool.ask(topic, from())
	}
	f, ok := s.pool.awaitUntil(ctx, s.w, nil, s.pool.beat())
	if ok {
		s.w = nil
	}
	return f
}

// drop withdraws a request still standing.
func (s *standing) drop() {
	if s.w != nil {
		s.pool.withdraw(s.w)
		s.w = nil
	}
}
