package fabrictest

import (
	"fmt"
	"net/http"
	"net/url"
	"time"
)

// clockAnswer is the emulator clock's answer (POST/GET /_emulator/clock).
type clockAnswer struct {
	Now    time.Time `json:"now"`
	Errors []string  `json:"errors"`
}

// AdvanceClock moves the emulator's clock d forward and returns its new
// time; it fails the test unless the emulator answers 2xx and every
// destination ran the work the advance made due. Before it returns, the
// emulator has committed the batches held long enough (a Lakehouse
// destination's maximumDurationInSeconds) and closed the windows that
// ended, so a test advances and then asserts, without sleeping:
//
//	es.Produce(rows...)          // buffered: Fabric's template batches
//	env.AdvanceClock(2 * time.Minute)
//	g.Expect(lh.Table("t").TryRows()).To(HaveLen(len(rows)))
func (e *Env) AdvanceClock(d time.Duration) time.Time {
	e.t.Helper()
	at, err := e.TryAdvanceClock(d)
	if err != nil {
		e.t.Fatalf("fabrictest: advance the emulator clock by %s: %v", d, err)
	}
	return at
}

// TryAdvanceClock is AdvanceClock that returns the error instead of
// failing the test (the clock has moved when only a destination failed).
func (e *Env) TryAdvanceClock(d time.Duration) (time.Time, error) {
	var out clockAnswer
	if _, err := e.do(http.MethodPost, "/_emulator/clock", nil, map[string]any{"advance": d.String()}, 0, &out); err != nil {
		return time.Time{}, err
	}
	if len(out.Errors) > 0 {
		return out.Now, fmt.Errorf("the clock moved to %s, but destinations failed their due work: %v", out.Now.Format(time.RFC3339), out.Errors)
	}
	return out.Now, nil
}

// Now returns the emulator clock's time (the wall clock plus every
// AdvanceClock so far) and fails the test unless the emulator answers.
func (e *Env) Now() time.Time {
	e.t.Helper()
	var out clockAnswer
	if _, err := e.do(http.MethodGet, "/_emulator/clock", nil, nil, 0, &out); err != nil {
		e.t.Fatalf("fabrictest: read the emulator clock: %v", err)
	}
	return out.Now
}

// FlushDestination makes destination destinationID commit what it has
// buffered now (a batching Lakehouse destination, whatever its
// minimumRows and maximumDurationInSeconds) and returns how many rows
// that was; it fails the test unless the emulator answers 2xx.
func (es Eventstream) FlushDestination(destinationID string) int64 {
	es.env.t.Helper()
	n, err := es.TryFlushDestination(destinationID)
	if err != nil {
		es.env.t.Fatalf("fabrictest: flush destination %s of eventstream %s: %v", destinationID, es.ID, err)
	}
	return n
}

// TryFlushDestination is FlushDestination that returns the error (an
// *APIError, such as 404 DestinationNotFound) instead of failing the test.
func (es Eventstream) TryFlushDestination(destinationID string) (int64, error) {
	var out struct {
		CommittedRows int64 `json:"committedRows"`
	}
	_, err := es.env.do(http.MethodPost, es.itemPath()+"/destinations/"+url.PathEscape(destinationID)+"/flush", nil, nil, 0, &out)
	return out.CommittedRows, err
}
