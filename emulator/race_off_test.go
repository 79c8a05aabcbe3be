//go:build !race

package emulator_test

// raceEnabled is true in a -race build, where the largest tests run smaller.
const raceEnabled = false
