package api

import (
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/fabrictest/fabrictest/emulator/internal/fabricerr"
	"github.com/fabrictest/fabrictest/emulator/internal/faults"
	"github.com/fabrictest/fabrictest/emulator/wire"
)

// faultsPrefix is the path of the fault routes, which no rule reaches (a
// test must always be able to end its faults).
const faultsPrefix = "/_emulator/faults"

// faultRoutes registers the fault rules' routes, for loopback callers.
func (a *API) faultRoutes() {
	a.handle("POST "+faultsPrefix, false, a.loopbackOnly("fault injection", a.addFault))
	a.handle("GET "+faultsPrefix, false, a.loopbackOnly("fault injection", a.listFaults))
	a.handle("DELETE "+faultsPrefix, false, a.loopbackOnly("fault injection", a.clearFaults))
	a.handle("DELETE "+faultsPrefix+"/{rule}", false, a.loopbackOnly("fault injection", a.deleteFault))
}

// addFault serves POST /_emulator/faults: 201 and the rule as active.
func (a *API) addFault(c *call) error {
	var r wire.FaultRule
	if err := a.decode(c, &r); err != nil {
		return err
	}
	st, err := a.cfg.Faults.Add(r)
	var ve *faults.ValidationError
	if errors.As(err, &ve) {
		return fabricerr.BadParameter(ve.Field, "%s", ve.Message)
	} else if err != nil {
		return err
	}
	a.cfg.Logger.Info("fault rule added", "rule", st.ID, "door", st.Target.Door, "effect", st.Effect.Kind)
	return c.JSON(http.StatusCreated, st)
}

// listFaults serves GET /_emulator/faults: the active rules.
func (a *API) listFaults(c *call) error {
	return c.JSON(http.StatusOK, wire.FaultRules{Value: a.cfg.Faults.List()})
}

// clearFaults serves DELETE /_emulator/faults: every rule ends.
func (a *API) clearFaults(c *call) error {
	return c.JSON(http.StatusOK, map[string]int{"deleted": a.cfg.Faults.Clear()})
}

// deleteFault serves DELETE /_emulator/faults/{rule}.
func (a *API) deleteFault(c *call) error {
	id := c.r.PathValue("rule")
	if err := a.cfg.Faults.Delete(id); errors.Is(err, faults.ErrNotFound) {
		return fabricerr.New(http.StatusNotFound, wire.FaultRuleNotFound, "no active fault rule %q (it may have ended by itself)", id)
	} else if err != nil {
		return err
	}
	c.w.WriteHeader(http.StatusOK)
	return nil
}

// injectREST applies the fault a rule injects into this call, if any: it
// answers true when the call was answered (or dropped) by the fault.
func (a *API) injectREST(c *call, pattern string) bool {
	r := c.r
	if strings.HasPrefix(r.URL.Path, faultsPrefix) {
		return false
	}
	hit := a.cfg.Faults.Check(faults.Request{Door: wire.FaultDoorREST, Method: r.Method, Route: pattern, Path: r.URL.Path,
		Eventstream: r.PathValue("id"), Node: r.PathValue("ds"), Operation: faults.RESTOperation(pattern)})
	if hit == nil {
		return false
	}
	e := hit.Effect
	switch e.Kind {
	case wire.FaultLatency:
		select {
		case <-time.After(hit.Latency()):
		case <-r.Context().Done():
		}
		return false
	case wire.FaultDrop:
		panic(http.ErrAbortHandler) // net/http closes the connection without an answer
	case wire.FaultThrottle:
		until := a.cfg.Now().Add(time.Duration(e.RetryAfterSeconds) * time.Second).UTC()
		fe := fabricerr.New(http.StatusTooManyRequests, wire.RequestBlocked, "%s", faults.Message(e,
			"Request is blocked by the upstream service until: "+until.Format("1/2/2006 3:04:05 PM")+" (UTC)"))
		fe.RetryAfter = e.RetryAfterSeconds
		fabricerr.Write(c.w, c.id, fe)
	default:
		fabricerr.Write(c.w, c.id, fabricerr.New(e.Status, wire.FaultInjected, "%s", faults.Message(e, "injected fault (rule "+hit.Rule+")")))
	}
	return true
}
