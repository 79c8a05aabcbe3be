package portal_test

import (
	"strings"
	"testing"

	"github.com/fabrictest/fabrictest/emulator/wire"
)

// TestFaultRulesPanel: the first page lists the active fault rules with
// their target, effect and count, and says there are none once they end.
func TestFaultRulesPanel(t *testing.T) {
	f := deploy(t)
	if _, body := getPage(t, f.portal(""), ""); !strings.Contains(body, "Active fault rules") || !strings.Contains(body, "None.") {
		t.Fatalf("the first page without rules: %s", body)
	}
	rule := wire.FaultRule{Target: wire.FaultTarget{Door: wire.FaultDoorKafka, Operation: wire.FaultProduce},
		Effect: wire.FaultEffect{Kind: wire.FaultError, KafkaError: "NOT_ENOUGH_REPLICAS"}, Count: 3}
	id := f.api(f.token, "POST", "/_emulator/faults", rule, 201)["id"].(string)
	f.api(f.token, "POST", "/_emulator/faults", wire.FaultRule{Target: wire.FaultTarget{Door: wire.FaultDoorDestination, Destination: f.lake},
		Effect: wire.FaultEffect{Kind: wire.FaultLatency, LatencyMs: 250}, DurationSeconds: 60}, 201)
	_, body := getPage(t, f.portal(""), "")
	for _, want := range []string{id, "kafka produce", "error NOT_ENOUGH_REPLICAS", "0 of 3", "after its count",
		"destination destination <code>" + f.lake + "</code>", "latency 250 ms"} {
		if !strings.Contains(body, want) {
			t.Errorf("the fault panel lacks %q", want)
		}
	}
	f.api(f.token, "DELETE", "/_emulator/faults", nil, 200)
	if _, body := getPage(t, f.portal(""), ""); strings.Contains(body, id) || !strings.Contains(body, "None.") {
		t.Fatal("the panel still lists a rule after DELETE /_emulator/faults")
	}
}
