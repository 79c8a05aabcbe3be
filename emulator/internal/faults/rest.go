package faults

import (
	"strings"

	"github.com/fabrictest/fabrictest/emulator/wire"
)

// RESTOperation is produce or consume for the REST routes of an
// Eventstream's events (a route pattern as "METHOD path"), else "".
func RESTOperation(pattern string) string {
	switch {
	case strings.HasPrefix(pattern, "POST ") && strings.HasSuffix(pattern, "/events"):
		return wire.FaultProduce
	case strings.HasPrefix(pattern, "GET ") && strings.HasSuffix(pattern, "/events"):
		return wire.FaultConsume
	}
	return ""
}

// Message is the effect's own message, else def.
func Message(e wire.FaultEffect, def string) string {
	if e.Message != "" {
		return e.Message
	}
	return def
}
