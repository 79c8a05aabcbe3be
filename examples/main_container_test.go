//go:build container

package examples_test

import (
	"os"
	"testing"

	"github.com/fabrictest/fabrictest/fabrictest"
)

// With -tags container: one Apache Kafka container for the whole package,
// each test with its own emulator and topics. This is the TestMain to copy.
func TestMain(m *testing.M) { os.Exit(fabrictest.SharedKafka(m)) }
