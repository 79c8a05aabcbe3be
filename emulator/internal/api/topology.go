package api

import (
	"net/http"

	"github.com/fabrictest/fabrictest/emulator/internal/control"
	"github.com/fabrictest/fabrictest/emulator/internal/store"
	"github.com/fabrictest/fabrictest/emulator/wire"
)

// The topology API: the Eventstream's sources, streams, operators and
// destinations with their runtime status (control.Plane.Topology), and
// pause / resume.

// EventstreamSourcePaused answers a produce into a paused source: 409, the
// request is valid but conflicts with the source's state (resume it, or
// retry later), as opposed to a 400 for a request that can never succeed.
const EventstreamSourcePaused = "EventstreamSourcePaused"

// getTopology serves GET …/eventstreams/{id}/topology.
func (a topologyHandlers) getTopology(c *call) error {
	es, err := a.item(c, TypeEventstream, store.RoleViewer)
	if err != nil {
		return err
	}
	t, err := a.plane.Topology(c.r.Context(), es, true)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, t)
}

// topologyNode finds the {ds} source or {dest} destination in the
// rendered topology (control.Plane.TopologyNode).
func (a *API) topologyNode(c *call, es store.Item, list, id, what string) (wire.Node, error) {
	return a.plane.TopologyNode(c.r.Context(), es, list, id, what)
}

// getSource serves GET …/eventstreams/{id}/sources/{ds}.
func (a topologyHandlers) getSource(c *call) error {
	es, err := a.item(c, TypeEventstream, store.RoleViewer)
	if err != nil {
		return err
	}
	n, err := a.topologyNode(c, es, "sources", c.r.PathValue("ds"), "Source")
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, n)
}

// getDestination serves GET …/eventstreams/{id}/destinations/{dest}
// (control.Plane.DestinationNode).
func (a topologyHandlers) getDestination(c *call) error {
	n, err := a.plane.DestinationNode(c.r.Context(), c.caller(), nodeRef(c, "dest"))
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, n)
}

// ---- pause / resume ----

// esRef is the call's Eventstream as the control plane names it.
func esRef(c *call) control.ItemRef {
	return control.ItemRef{WorkspaceID: c.r.PathValue("ws"), ID: c.r.PathValue("id"), Type: TypeEventstream}
}

// nodeRef is the call's node {key} of its Eventstream.
func nodeRef(c *call, key string) control.NodeRef {
	return control.NodeRef{Eventstream: esRef(c), Node: c.r.PathValue(key)}
}

// answerOK answers 200 without a body when err is nil.
func answerOK(c *call, err error) error {
	if err != nil {
		return err
	}
	c.w.WriteHeader(http.StatusOK)
	return nil
}

// readStart decodes a resume body once check (the caller's reach of the
// node, answered first as every route does) passed; the control plane
// checks the body.
func (a topologyHandlers) readStart(c *call, check error) (control.Start, error) {
	var s control.Start
	if check != nil {
		return s, check
	}
	return s, a.decode(c, &s)
}

// pauseEventstream serves POST …/eventstreams/{id}/pause.
func (a topologyHandlers) pauseEventstream(c *call) error {
	return answerOK(c, a.plane.PauseEventstream(c.r.Context(), c.caller(), esRef(c)))
}

// resumeEventstream serves POST …/eventstreams/{id}/resume.
func (a topologyHandlers) resumeEventstream(c *call) error {
	_, check := a.item(c, TypeEventstream, store.RoleContributor)
	st, err := a.readStart(c, check)
	if err != nil {
		return err
	}
	return answerOK(c, a.plane.ResumeEventstream(c.r.Context(), c.caller(), esRef(c), st))
}

func (a topologyHandlers) pauseSource(c *call) error {
	return answerOK(c, a.plane.PauseSource(c.r.Context(), c.caller(), nodeRef(c, "ds")))
}

func (a topologyHandlers) resumeSource(c *call) error {
	st, err := a.readStart(c, a.plane.CheckSource(c.r.Context(), c.caller(), nodeRef(c, "ds")))
	if err != nil {
		return err
	}
	return answerOK(c, a.plane.ResumeSource(c.r.Context(), c.caller(), nodeRef(c, "ds"), st))
}

func (a topologyHandlers) pauseDestination(c *call) error {
	return answerOK(c, a.plane.PauseDestination(c.r.Context(), c.caller(), nodeRef(c, "dest")))
}

func (a topologyHandlers) resumeDestination(c *call) error {
	st, err := a.readStart(c, a.plane.CheckDestinationNode(c.r.Context(), c.caller(), nodeRef(c, "dest")))
	if err != nil {
		return err
	}
	return answerOK(c, a.plane.ResumeDestination(c.r.Context(), c.caller(), nodeRef(c, "dest"), st))
}
