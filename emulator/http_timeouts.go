package emulator

import (
	"time"

	"github.com/fabrictest/fabrictest/emulator/internal/api"
)

// Default HTTP timeouts (see HTTPTimeouts).
const (
	defaultReadHeaderTimeout = 10 * time.Second
	defaultReadTimeout       = 60 * time.Second
	defaultIdleTimeout       = 120 * time.Second
	// answerMargin is what the write timeout leaves for writing an answer
	// once a produce has waited all it may.
	answerMargin = time.Minute
)

// withDefaults fills the zero fields of t. The write timeout, which runs
// from the end of the headers, must outlast a produce that reads its body
// for up to Read and then waits for the broker (produce) and for its
// destinations before answering.
func (t HTTPTimeouts) withDefaults(produce time.Duration) HTTPTimeouts {
	if t.ReadHeader == 0 {
		t.ReadHeader = defaultReadHeaderTimeout
	}
	if t.Read == 0 {
		t.Read = defaultReadTimeout
	}
	if t.Idle == 0 {
		t.Idle = defaultIdleTimeout
	}
	if produce <= 0 {
		produce = api.DefaultProduceTimeout
	}
	if t.Write == 0 {
		t.Write = t.Read + produce + api.DeliveryWait + answerMargin
	}
	return t
}
