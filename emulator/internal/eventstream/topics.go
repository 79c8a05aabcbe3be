package eventstream

// DefaultTopic is the Kafka topic of the DefaultStream dsID of Eventstream itemID.
func DefaultTopic(itemID, dsID string) string { return itemID + "." + dsID }

// DerivedTopic is the Kafka topic of the DerivedStream id of Eventstream esID.
func DerivedTopic(esID, id string) string { return esID + "." + id }

// DrainGroup is the Kafka consumer group of the drain of destination destID.
func DrainGroup(destID string) string { return "fabric-emulator-destination-" + destID }

// ItemType is the Fabric item type of an Eventstream.
const ItemType = "Eventstream"

// DeadLetterTopic is the default dead-letter topic of destination destID
// of Eventstream esID (the dlq error policy).
func DeadLetterTopic(esID, destID string) string { return esID + ".dlq." + destID }
