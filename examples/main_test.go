//go:build !container

package examples_test

import (
	"os"
	"testing"

	"github.com/fabrictest/fabrictest/fabrictest"
)

// Untagged, the examples run on the in-process broker unless
// FABRICTEST_KAFKA says otherwise, so `go test ./...` needs no Docker. A
// container, when FABRICTEST_KAFKA asks for one, is shared by the package.
func TestMain(m *testing.M) {
	if os.Getenv("FABRICTEST_KAFKA") == "" {
		os.Setenv("FABRICTEST_KAFKA", "embedded")
	}
	os.Exit(fabrictest.SharedKafka(m))
}
