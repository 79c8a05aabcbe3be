package drain

// ResumeError is returned by Start when the sink cannot say where it
// stopped (its journal is unreadable, or it failed reading it): the
// destination's own state is at fault, not Kafka.
type ResumeError struct{ Err error }

func (e *ResumeError) Error() string { return "read resume points: " + e.Err.Error() }

// Unwrap returns the sink's error.
func (e *ResumeError) Unwrap() error { return e.Err }

// Failed returns a drain that could not start because of err: it delivers
// nothing, its Status carries err, WaitPast answers err at once, and Close
// does nothing. It stands in for the destination until a restart succeeds.
func Failed(err error) *Drain {
	done := make(chan struct{})
	close(done)
	return &Drain{done: done, next: map[int32]int64{}, changed: make(chan struct{}), err: err, startErr: err}
}
