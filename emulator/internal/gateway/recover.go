package gateway

import "runtime/debug"

// recoverPanic, deferred in a session's goroutine, turns a panic there into
// the end of that one connection, logged with its stack, instead of the end
// of the process.
func (s *session) recoverPanic(goroutine string) {
	if p := recover(); p != nil {
		s.log.Error("kafka gateway: panic serving a connection; closing it", "goroutine", goroutine, "panic", p, "stack", string(debug.Stack()))
		s.close()
	}
}
