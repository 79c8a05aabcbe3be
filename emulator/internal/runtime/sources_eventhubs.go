package runtime

import (
	"strings"

	"github.com/fabrictest/fabrictest/emulator/internal/definition"
)

// Event Hubs and IoT Hub sources read their event hub through the Kafka
// protocol, as Kafka-protocol sources do (sources_kafka.go): the connection
// their dataConnectionId names is registered with an Event Hubs connection
// string (api/connections_eventhubs.go), whose EntityPath is the topic. The
// source's consumerGroupName is the Kafka consumer group, and its
// startPosition (Earliest or Latest; the Extended types' property, Latest
// when left out) is where a group without committed offsets starts.

// EventHubSourceTypes are the Event Hubs-protocol source types the emulator runs.
var EventHubSourceTypes = []string{"AzureEventHub", "AzureIoTHub"}

// EventHubPropsOf reads Event Hubs or IoT Hub source node n, reading the
// event hub of connection conn.
func EventHubPropsOf(n *definition.Node, conn KafkaConnection) KafkaSourceProps {
	start := "Latest"
	if strings.EqualFold(n.Str("startPosition"), "Earliest") {
		start = "Earliest"
	}
	return KafkaSourceProps{
		DataConnectionID:  strings.ToLower(n.Str("dataConnectionId")),
		Topic:             conn.EventHub,
		ConsumerGroupName: n.Str("consumerGroupName"),
		AutoOffsetReset:   start,
	}
}
