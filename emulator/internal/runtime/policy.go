package runtime

import (
	"fmt"

	"github.com/fabrictest/fabrictest/emulator/internal/eventstream"
	"github.com/fabrictest/fabrictest/emulator/internal/insights"
)

// heldError is a batch held back by the retry or fail error policy: one of
// its rows could not be written, and the policy disposes of none.
type heldError struct {
	policy string
	row    rejectedRow
	rows   int // rows held back in this call
}

func (e *heldError) Error() string {
	msg := fmt.Sprintf("%s was not written: %v", where(e.row.Out), e.row.Reason)
	if e.rows > 1 {
		msg += fmt.Sprintf(" (and %d more rows of the batch)", e.rows-1)
	}
	if e.policy == eventstream.PolicyRetry {
		msg += "; error policy retry: the batch is written again until it succeeds"
	}
	return msg
}

// Unwrap returns why the row was not written.
func (e *heldError) Unwrap() error { return e.row.Reason }

// where names a row by its record's coordinates.
func where(o outRow) string {
	if o.Offset < 0 {
		return "a row made by the operators"
	}
	return fmt.Sprintf("the record at partition %d, offset %d", o.Partition, o.Offset)
}

// maxHeld bounds the rows a retrying rejecter remembers.
const maxHeld = 1024

// hold applies the retry or fail policy to rs: nothing is disposed of,
// and the returned *heldError fails the batch. Each row counts in its
// data-insights metric and is logged: under fail every time (each attempt
// follows a resume), under retry once for as long as the same row fails.
func (r *rejecter) hold(rs []rejectedRow) error {
	level := insights.LevelError
	if r.policy == eventstream.PolicyRetry {
		level = insights.LevelWarning
	}
	for _, x := range rs {
		if r.policy == eventstream.PolicyRetry {
			key := fmt.Sprintf("%d/%d/%d/%v", x.Seq, x.Out.Partition, x.Out.Offset, x.Reason)
			if r.held[key] {
				continue
			}
			if r.held == nil || len(r.held) >= maxHeld { // rows that failed long ago: forget them
				r.held = map[string]bool{}
			}
			r.held[key] = true
		}
		r.node.Add(x.Metric, 1)
		r.node.Log(r.now(), level, (&heldError{policy: r.policy, row: x, rows: 1}).Error(), x.attrs()...)
	}
	return &heldError{policy: r.policy, row: rs[0], rows: len(rs)}
}
