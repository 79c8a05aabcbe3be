package kustofake

import (
	"fmt"
	"net"
	"net/http"
	"strings"
	"time"
)

// Fault makes matching requests to the Kusto endpoints fail.
type Fault struct {
	// Count is how many matching requests fail; 0 means 1.
	Count int
	// Match, if set, is a substring the request's command or query text must
	// contain (for example ".ingest").
	Match string
	// Endpoint, if set, restricts the fault to one path (PathMgmt, …).
	Endpoint string
	// AfterApply lets the command take effect and then replaces its answer
	// with the failure: the reply a client sees when the engine committed but
	// the response was lost. Only requests that succeeded count.
	AfterApply bool
	// Status is the HTTP status answered; 0 means 503 Service Unavailable.
	Status int
	// Message is the failure's text; empty means a generic one.
	Message string
}

// Inject queues a fault. Faults are checked in the order injected.
func (s *Server) Inject(f Fault) {
	if f.Count <= 0 {
		f.Count = 1
	}
	s.mu.Lock()
	s.faults = append(s.faults, &f)
	s.mu.Unlock()
}

// FailNext makes the next n requests to the Kusto endpoints answer 503
// before they take effect.
func (s *Server) FailNext(n int) { s.Inject(Fault{Count: n}) }

// PendingFaults is how many injected failures have not fired yet.
func (s *Server) PendingFaults() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, f := range s.faults {
		n += f.Count
	}
	return n
}

// ClearFaults drops every pending fault and clears SetUnavailable.
func (s *Server) ClearFaults() {
	s.mu.Lock()
	s.faults, s.unavailable = nil, false
	s.mu.Unlock()
}

// SetUnavailable makes every request, the auth metadata probe included,
// answer 503 until it is called with false.
func (s *Server) SetUnavailable(on bool) {
	s.mu.Lock()
	s.unavailable = on
	s.mu.Unlock()
}

// takeFault consumes the first pending fault matching the request.
func (s *Server) takeFault(endpoint, csl string, afterApply bool) *engineError {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.unavailable && !afterApply {
		return unavailable(0, "the engine is unavailable (kustofake SetUnavailable)")
	}
	for i, f := range s.faults {
		if f.AfterApply != afterApply || (f.Endpoint != "" && f.Endpoint != endpoint) || !strings.Contains(csl, f.Match) {
			continue
		}
		f.Count--
		if f.Count == 0 {
			s.faults = append(s.faults[:i], s.faults[i+1:]...)
		}
		msg := f.Message
		if msg == "" {
			when := "before"
			if afterApply {
				when = "after"
			}
			msg = fmt.Sprintf("injected failure %s the request took effect (kustofake fault)", when)
		}
		e := unavailable(f.Status, msg)
		if f.Status != 0 && f.Status != http.StatusServiceUnavailable {
			e.code, e.message = http.StatusText(f.Status), http.StatusText(f.Status)
		}
		return e
	}
	return nil
}

// Down closes the listener and every connection, so that clients see
// "connection refused" until Up. Stored databases are kept. It returns after
// a short grace period (50 ms).
func (s *Server) Down() {
	s.mu.Lock()
	hs := s.hs
	if s.closed || s.down {
		s.mu.Unlock()
		return
	}
	s.hs, s.down = nil, true
	s.mu.Unlock()
	_ = hs.Close()
	// Give clients in this process a moment to see their pooled connections
	// close, so that their next request dials (and is refused) instead of
	// writing into a dead keep-alive connection.
	time.Sleep(downGrace)
}

// downGrace is how long Down waits after closing connections.
const downGrace = 50 * time.Millisecond

// Up listens again on the same address after Down.
func (s *Server) Up() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return errClosed
	}
	if !s.down {
		return nil
	}
	var ln net.Listener
	var err error
	for range 50 { // the port may linger for a moment after Close
		if ln, err = net.Listen("tcp", s.addr); err == nil {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err != nil {
		return fmt.Errorf("kustofake: listen again on %s: %w", s.addr, err)
	}
	s.down = false
	s.serve(ln)
	return nil
}
