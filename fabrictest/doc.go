// Package fabrictest is the test harness downstream projects import:
// Start(t) boots the emulator in-process with a Kafka broker (a real Apache
// Kafka container by default) and returns an environment with helpers to
// create items, bind destinations, produce events and assert Delta commits.
// Everything is torn down with t.Cleanup.
//
// The harness arrives with the fabrictest issue; this package holds its place
// in the layout until then.
package fabrictest
