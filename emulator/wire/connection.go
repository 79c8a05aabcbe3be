package wire

// Connection is a custom endpoint's connection (GET
// …/sources/{id}/connection or …/destinations/{id}/connection): what a
// client configured the Event Hubs way needs.
type Connection struct {
	// Type is CustomEndpoint. Fabric's published spec has none; Microsoft's
	// Python SDK reads the answer as a polymorphic EndpointConnection and
	// needs it.
	Type string `json:"type"`
	// FullyQualifiedNamespace is the endpoint's host (and port, when it is
	// not Event Hubs' own).
	FullyQualifiedNamespace string `json:"fullyQualifiedNamespace"`
	// EventHubName is the entity (the Kafka topic) to produce to or read.
	EventHubName string `json:"eventHubName"`
	// ConsumerGroupName is the group a destination's readers join (none for
	// a source).
	ConsumerGroupName string `json:"consumerGroupName,omitempty"`
	// AccessKeys are the shared access keys and connection strings.
	AccessKeys AccessKeys `json:"accessKeys"`
}

// AccessKeys are a custom endpoint's keys and connection strings.
type AccessKeys struct {
	PrimaryKey                string `json:"primaryKey"`
	SecondaryKey              string `json:"secondaryKey"`
	PrimaryConnectionString   string `json:"primaryConnectionString"`
	SecondaryConnectionString string `json:"secondaryConnectionString"`
}
