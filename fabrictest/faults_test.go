package fabrictest_test

import (
	"testing"
	"time"

	. "github.com/onsi/gomega"

	"github.com/fabrictest/fabrictest/fabrictest"
)

// TestFaultHelpers: a rule passed to Start throttles the first workspace
// creation with Fabric's 429 RequestBlocked; an injected destination write
// failure fails the HTTP produce's delivery wait, is retried, and the
// table gets each row once; the rules end by
// themselves, and RemoveFault and ClearFaults end the others.
func TestFaultHelpers(t *testing.T) {
	t.Parallel()
	g := NewWithT(t)
	env := fabrictest.Start(t, fabrictest.WithFaults(fabrictest.RESTThrottle("POST /v1/workspaces", time.Second, 1)))
	_, err := env.TryCall("POST", "/v1/workspaces", map[string]any{"displayName": "throttled"})
	g.Expect(fabrictest.ErrorCode(err)).To(Equal("RequestBlocked"))
	ws := env.Workspace("faults")
	lh := ws.Lakehouse("faults_lh")
	es := ws.DeployEventstream("faulty", map[string]any{
		"sources": []any{map[string]any{"name": "in", "type": "CustomEndpoint", "properties": map[string]any{}}},
		"streams": []any{map[string]any{"name": "faulty-stream", "type": "DefaultStream", "properties": map[string]any{},
			"inputNodes": []any{map[string]any{"name": "in"}}}},
		"destinations": []any{map[string]any{"name": "lake", "type": "Lakehouse",
			"properties": map[string]any{"workspaceId": ws.ID, "itemId": lh.ID, "deltaTable": "events", "minimumRows": 1},
			"inputNodes": []any{map[string]any{"name": "faulty-stream"}}}},
	})
	dest := es.Topology().Destination("lake")
	env.InjectFault(fabrictest.DestinationWriteFailure(dest.ID, 2))
	// The HTTP produce waits for delivery: while the write fails it answers
	// 502 DestinationFailed, the events kept in Kafka for the retry.
	_, err = es.TryProduce(fabrictest.Event{Value: map[string]any{"n": 1}}, fabrictest.Event{Value: map[string]any{"n": 2}})
	g.Expect(fabrictest.ErrorCode(err)).To(Equal("DestinationFailed"))
	g.Eventually(func() (fabrictest.Rows, error) { return lh.Table("events").TryRows() }, 10*time.Second).Should(HaveLen(2))
	g.Consistently(func() (fabrictest.Rows, error) { return lh.Table("events").TryRows() }, 300*time.Millisecond).Should(HaveLen(2))
	g.Expect(env.Faults()).To(BeEmpty(), "both rules ended by their counts")

	id := env.InjectFault(fabrictest.BrokerUnreachable(time.Minute))
	g.Expect(env.Faults()).To(HaveLen(1))
	env.RemoveFault(id)
	env.InjectFault(fabrictest.KafkaError("produce", "REQUEST_TIMED_OUT", 5))
	env.InjectFault(fabrictest.EventHubsServerBusy(5))
	g.Expect(env.Faults()).To(HaveLen(2))
	env.ClearFaults()
	g.Expect(env.Faults()).To(BeEmpty())
	_, err = env.TryInjectFault(fabrictest.KafkaError("produce", "NO_SUCH_ERROR", 1))
	g.Expect(fabrictest.ErrorCode(err)).To(Equal("InvalidInput"))
}
