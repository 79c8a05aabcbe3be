package api

import (
	"errors"
	"math"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/fabrictest/fabrictest/emulator/internal/fabricerr"
)

// clockRequest is the body of POST /_emulator/clock: how far to advance
// the clock, as seconds (advanceSeconds, a number) or as a Go duration
// ("advance": "2m", "90s", "1h30m"); exactly one.
type clockRequest struct {
	AdvanceSeconds *float64 `json:"advanceSeconds"`
	Advance        string   `json:"advance"`
}

// clockJSON is the emulator clock's answer.
type clockJSON struct {
	Now           string   `json:"now"`           // RFC 3339, UTC
	OffsetSeconds float64  `json:"offsetSeconds"` // how far it has been advanced in all
	Errors        []string `json:"errors,omitempty"`
}

// loopbackOnly wraps a control endpoint so that it refuses a caller not
// on loopback (unless the operator allowed remote tokens, which opens the
// control plane as much); what names the endpoint in the refusal.
func (a *API) loopbackOnly(what string, fn endpoint) endpoint {
	return func(c *call) error {
		host, _, err := net.SplitHostPort(c.r.RemoteAddr)
		if ip := net.ParseIP(host); !a.cfg.RemoteTokens && (err != nil || ip == nil || !ip.IsLoopback()) {
			return fabricerr.New(http.StatusForbidden, fabricerr.Forbidden, "%s is for loopback callers only", what)
		}
		return fn(c)
	}
}

// getClock serves GET /_emulator/clock.
func (a clockHandlers) getClock(c *call) error {
	return c.JSON(http.StatusOK, a.clockAnswer(a.rt.Clock().Now(), nil))
}

// advanceClock serves POST /_emulator/clock: the clock moves forward,
// then every destination's due work (batches held long enough, windows
// closed) runs before the answer, so a test can advance and then assert.
// A destination whose due work failed is named in errors; the clock has
// moved anyway.
func (a clockHandlers) advanceClock(c *call) error {
	var req clockRequest
	if err := a.decode(c, &req); err != nil {
		return err
	}
	d, err := req.duration()
	if err != nil {
		return err
	}
	at, err := a.rt.AdvanceClock(c.r.Context(), d)
	var errs []string
	if err != nil {
		var joined interface{ Unwrap() []error }
		if !errors.As(err, &joined) {
			return err // the clock itself (saving its offset)
		}
		for _, e := range joined.Unwrap() {
			errs = append(errs, a.scrub(e.Error()))
		}
	}
	return c.JSON(http.StatusOK, a.clockAnswer(at, errs))
}

func (a clockHandlers) clockAnswer(at time.Time, errs []string) clockJSON {
	return clockJSON{Now: at.UTC().Format(time.RFC3339Nano), OffsetSeconds: a.rt.Clock().Offset().Seconds(), Errors: errs}
}

// duration reads the advance asked for.
func (r clockRequest) duration() (time.Duration, error) {
	switch {
	case r.AdvanceSeconds != nil && r.Advance != "":
		return 0, fabricerr.BadParameter("advance", "give advanceSeconds or advance, not both")
	case r.AdvanceSeconds != nil:
		s := *r.AdvanceSeconds
		if s < 0 || math.IsNaN(s) || s > maxAdvance.Seconds() {
			return 0, fabricerr.BadParameter("advanceSeconds", "want 0 to %.0f seconds (the clock only moves forward), got %v", maxAdvance.Seconds(), s)
		}
		return time.Duration(s * float64(time.Second)), nil
	case r.Advance != "":
		d, err := time.ParseDuration(strings.TrimSpace(r.Advance))
		if err != nil || d < 0 || d > maxAdvance {
			return 0, fabricerr.BadParameter("advance", "want a duration such as \"2m\" or \"90s\", 0 to %s (the clock only moves forward), got %q", maxAdvance, r.Advance)
		}
		return d, nil
	}
	return 0, fabricerr.BadParameter("advanceSeconds", "required: how far to advance the clock (or advance, a duration such as \"2m\")")
}

// maxAdvance bounds one advance (a year), far past any batching or
// window duration.
const maxAdvance = 366 * 24 * time.Hour

// flushDestination serves POST …/destinations/{dest}/flush: a batching
// destination commits what it has buffered now (committedRows; 0 for one
// that does not batch or holds nothing).
func (a clockHandlers) flushDestination(c *call) error {
	n, err := a.plane.FlushDestination(c.r.Context(), c.caller(), nodeRef(c, "dest"))
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, map[string]any{"committedRows": n})
}
