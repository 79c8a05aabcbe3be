//go:build !container

package fabrictest_test

import (
	"os"
	"testing"

	"github.com/fabrictest/fabrictest/fabrictest"
)

// Untagged (`go test ./...`, tier 1), these tests run on the in-process
// broker unless FABRICTEST_KAFKA says otherwise, so they need no Docker.
// With -tags container (main_container_test.go) the same tests run on
// Apache Kafka. Either way a container, if one is asked for, is shared by
// the whole binary (SharedKafka starts none for the embedded broker).
func TestMain(m *testing.M) {
	if os.Getenv(fabrictest.KafkaEnv) == "" {
		os.Setenv(fabrictest.KafkaEnv, fabrictest.KafkaEmbedded)
	}
	os.Exit(fabrictest.SharedKafka(m))
}
