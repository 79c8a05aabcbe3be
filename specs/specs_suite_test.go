//go:build container

package specs_test

import (
	"os"
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/fabrictest/fabrictest/fabrictest"
)

// One Kafka container serves the whole suite; every spec gets its own
// emulator and topics (fabrictest.SharedKafka).
func TestMain(m *testing.M) { os.Exit(fabrictest.SharedKafka(m)) }

func TestSpecs(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "Witness Suite")
}

var _ = BeforeSuite(func() {
	Expect(os.Getenv(fabrictest.KafkaEnv)).NotTo(Equal(fabrictest.KafkaEmbedded),
		"the witness specs prove behaviour on Apache Kafka: unset %s (a container, the default) or point it at a cluster (host:port)", fabrictest.KafkaEnv)
})
