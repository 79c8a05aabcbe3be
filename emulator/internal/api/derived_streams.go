package api

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/fabrictest/fabrictest/emulator/internal/control"
	"github.com/fabrictest/fabrictest/emulator/internal/eventstream"
	"github.com/fabrictest/fabrictest/emulator/internal/fabricerr"
	"github.com/fabrictest/fabrictest/emulator/internal/store"
)

// Derived streams (control/derived_streams.go makes them): a produce into
// one is refused, and a CustomEndpoint destination that reads one is
// served its topic.

// DerivedStreamIsReadOnly answers a produce addressed to a DerivedStream:
// its topic holds the operators' output only.
const DerivedStreamIsReadOnly = "DerivedStreamIsReadOnly"

// readOnlyError answers a produce into DerivedStream s.
func readOnlyError(s eventstream.Stream) error {
	return fabricerr.New(http.StatusBadRequest, DerivedStreamIsReadOnly,
		"%s is the DerivedStream %q: its topic holds the output of the operators before it and takes no events; produce into the DefaultStream or a CustomEndpoint source", s.ID, s.Name).
		WithResource(s.ID, eventstream.DerivedStreamType)
}

// endpointTopic is the topic the Kafka clients of CustomEndpoint node use:
// a source's is the DefaultStream's; a destination's, the topic of the
// stream it reads (the DefaultStream or a DerivedStream).
func endpointTopic(props eventstream.Model, node string) (string, error) {
	if len(props.Streams) == 0 {
		return "", fabricerr.New(http.StatusConflict, "EventstreamNotProvisioned", "the Eventstream has no DefaultStream yet")
	}
	t, err := props.Topology()
	if err != nil {
		return "", err
	}
	if t == nil {
		return props.Streams[0].Topic, nil
	}
	for _, n := range t.Destinations {
		if !strings.EqualFold(n.ID(), node) || len(n.Inputs) != 1 {
			continue
		}
		in := t.ByName[n.Inputs[0]]
		if in == nil || !in.Is(eventstream.DerivedStreamType) {
			break
		}
		if s, ok := props.Stream(in.ID()); ok {
			return s.Topic, nil
		}
		return "", fmt.Errorf("derived stream %q of CustomEndpoint destination %s has no topic", in.Name, node)
	}
	return props.Streams[0].Topic, nil
}

// internal reports whether d is a DerivedStream's internal binding.
func internal(d store.Destination) bool { return control.Internal(d) }
