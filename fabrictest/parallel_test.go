package fabrictest_test

import (
	"fmt"
	"testing"

	. "github.com/onsi/gomega"

	"github.com/fabrictest/fabrictest/fabrictest"
)

// TestParallelEnvironments runs eight environments at once (run it with
// -race). Untagged they use the embedded broker; with -tags container they
// share one Kafka container (SharedKafka in TestMain) and must still see
// only their own records.
func TestParallelEnvironments(t *testing.T) {
	const n = 8
	for i := range n {
		t.Run(fmt.Sprint("env-", i), func(t *testing.T) {
			t.Parallel()
			g := NewWithT(t)
			env := fabrictest.Start(t)
			ws := env.Workspace("team")
			es := ws.Eventstream("events")
			for j := range 5 {
				es.Produce(fabrictest.Event{Key: fmt.Sprint("env-", i), Value: map[string]int{"env": i, "n": j}})
			}
			want := make([]any, 5)
			for j := range want {
				want[j] = map[string]int{"env": i, "n": j}
			}
			g.Expect(es.Records()).To(fabrictest.HaveRecordsWithValues(want...))
			g.Expect(es.Consume()).To(fabrictest.HaveRecordCount(5))

			ws.Grant("reader", fabrictest.Viewer)
			_, err := fabrictest.As(es, "reader").TryProduce("nope")
			g.Expect(err).To(fabrictest.HaveErrorCode("InsufficientPrivileges"))
		})
	}
}
