package runtime

import "github.com/fabrictest/fabrictest/emulator/internal/eventstream"

// Event Hubs and IoT Hub sources read their event hub through the Kafka
// protocol, as Kafka-protocol sources do (sources_kafka.go): the connection
// their dataConnectionId names is registered with an Event Hubs connection
// string (api/connections_eventhubs.go), whose EntityPath is the topic. The
// source's consumerGroupName is the Kafka consumer group, and its
// startPosition (Earliest or Latest; the Extended types' property, Latest
// when left out) is where a group without committed offsets starts.

// EventHubSourceTypes are the Event Hubs-protocol source types the emulator runs.
var EventHubSourceTypes = eventstream.EventHubSourceTypes

// eventHubProps are Event Hubs or IoT Hub source k's properties reading
// the event hub of connection conn.
func eventHubProps(k KafkaSourceProps, conn KafkaConnection) KafkaSourceProps {
	k.Topic = conn.EventHub
	return k
}
