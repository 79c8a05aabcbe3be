//go:build container

package fabrictest_test

import (
	"os"
	"testing"

	"github.com/fabrictest/fabrictest/fabrictest"
)

// With -tags container (tier 2) every test of this package runs on Apache
// Kafka: one container for the whole binary (FABRICTEST_KAFKA_IMAGE, default
// the pinned apache/kafka:3.9.1), each test with its own emulator and topics.
func TestMain(m *testing.M) { os.Exit(fabrictest.SharedKafka(m)) }
