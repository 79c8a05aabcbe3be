// Package wire holds the shapes of the emulator's HTTP answers that Go code
// reads, and the catalogue of the error codes it answers.
//
// The types are plain structs with JSON tags, one per answer shape, in the
// manner of franz-go's kmsg: no behaviour beyond small helpers (finding a
// node by name, printing a counter line). The emulator's HTTP package
// renders its answers with them, and the portal and the fabrictest harness
// decode with them, so the three cannot drift apart: a field renamed here
// is renamed everywhere at once.
//
// What is here:
//
//   - the error envelope every failure is answered with ([Error], with
//     [ErrorDetail] and [RelatedResource]) and the [ErrorCode] catalogue
//     ([Codes] lists it);
//   - an Eventstream's topology ([Topology], [Node] with its [NodeError])
//     and the native view of a destination binding ([Destination],
//     [DestinationNode]);
//   - a custom endpoint's connection ([Connection]);
//   - data insights ([NodeMetrics], [EventstreamMetrics], [LogEntry]);
//   - records read back by the consume route ([ConsumeAnswer], [Record]);
//   - Job Scheduler instances ([JobInstance]);
//   - the item envelopes Go code reads ([Workspace], [Item],
//     [RoleAssignment], [Folder], [TableList], [DefinitionAnswer]), a
//     long-running operation's state ([OperationState]) and the paged
//     list envelope ([List]).
//
// Field names and values are the API's exactly: a Fabric name keeps
// Fabric's spelling, and the emulator's own additions (a binding's
// delivery counters, a job's triggerEvent) are named the same way. A
// field that the API sometimes leaves out is tagged omitempty (or
// omitzero where an empty list or object is sent and must stay so), so
// that decoding an answer and encoding it again gives the same JSON; a
// test in the emulator package checks that for every answer its
// conformance suite drives.
//
// Where Microsoft's specification is silent, the shapes follow what the
// emulator has always answered: a node's status is one of the NodeStatus
// values of the topology specification, a node's error has no errorDetails
// (the specification allows them; the emulator has none to give), and a
// topology node shows only the fields of Fabric's node responses, each
// present exactly when the Eventstream's definition gave it.
//
// Not here yet: Reflex triggers and the produce route's answer, which the
// portal and fabrictest still describe themselves, and the emulator's
// control routes (clock, health), which only their own callers read.
// A record's timestamp is a time.Time, so a record stamped outside the
// years 0 to 9999 (which Kafka allows) does not decode.
package wire
