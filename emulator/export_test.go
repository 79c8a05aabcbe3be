package emulator

import (
	"context"

	"github.com/fabrictest/fabrictest/emulator/internal/amqp/eventhubs"
)

// StartOperation starts a made-up long-running operation on s for principal
// (tests of the operations routes: one with no result, one that fails).
func StartOperation(s *Server, principal string, run func(context.Context) ([]byte, error)) string {
	return s.api.StartOperation(principal, run)
}

// ServerTimeouts reports the timeouts of s's HTTP server.
func ServerTimeouts(s *Server) HTTPTimeouts {
	return HTTPTimeouts{ReadHeader: s.http.ReadHeaderTimeout, Read: s.http.ReadTimeout, Write: s.http.WriteTimeout, Idle: s.http.IdleTimeout}
}

// AuthorizeEventHubs runs the Event Hubs door's credential check of s.
func AuthorizeEventHubs(s *Server, c eventhubs.Credential) (eventhubs.Grant, error) {
	return ehHost{s: s}.Authorize(context.Background(), c)
}
