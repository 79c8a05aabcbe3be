// Package examples holds runnable examples a newcomer copies: a downstream
// go test against fabrictest and a notebook against the standalone emulator.
package examples
