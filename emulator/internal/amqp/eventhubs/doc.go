// Package eventhubs is the Event Hubs door: the server side of the AMQP 1.0
// protocol as Azure Event Hubs speaks it, so that the Event Hubs SDKs
// (azeventhubs, azure-eventhub, azure-messaging-eventhubs, @azure/event-hubs,
// Azure.Messaging.EventHubs) send to and receive from the emulator with an
// unchanged connection string. It imports the standard library and the
// codec (package amqp) only, and reaches the emulator through Host.
//
// # Connection
//
// Serve accepts connections; each reads the protocol header first. Bytes
// that are not an AMQP header (garbage, an HTTP request, a TLS ClientHello
// on the plain port) and headers of other protocol versions close the
// connection, and a log line names the cause. A SASL header starts the
// SASL layer, which offers MSSBCBS, PLAIN and ANONYMOUS as Event Hubs does:
// MSSBCBS and ANONYMOUS leave authorization to claims-based security;
// PLAIN takes a key name and key that the host checks
// (Credential{Type: TokenSASLPlain}), and its grant covers the whole
// connection. A plain AMQP header without SASL is accepted like ANONYMOUS.
// Until open is answered, frames are limited to Options.PreAuthFrameSize
// and the whole exchange to Options.SASLTimeout.
//
// Open announces Options.MaxFrameSize, channel-max MaxSessions-1 and the
// idle timeout; the door sends heartbeats every half of the client's idle
// timeout (no more often than every 50ms) and closes a client silent for
// 1.5 times its own (amqp:resource-limit-exceeded, "idle timeout").
// Deliveries still arriving on a connection may buffer at most four
// max-message-sizes in all (beyond, the connection closes with
// amqp:resource-limit-exceeded). Sessions are bounded by
// channel-max, links per connection by MaxLinks (an attach beyond it is
// refused with amqp:resource-limit-exceeded), unsettled outgoing
// deliveries per connection by MaxUnsettled (the door stops sending until
// the client settles), RPC replies per reply link by a queue of 64, and
// CBS tokens per connection by MaxTokens. Each session grants an incoming
// window of 2048 transfer frames, restored when half is used; each sending
// link of a client gets LinkCredit credits, restored when half is used. A
// transfer beyond the window, on a handle not attached or without credit
// is a protocol error with the spec's condition.
//
// # Claims-based security
//
// The $cbs node takes put-token requests (application properties
// operation, type, name; the token as an amqp-value string) and answers
// with status-code 202 ("Accepted"), 400 for a malformed request, 401
// when the host refuses the token, 404 for an unknown entity and 403 past
// MaxTokens, in status-description the host's reason. Token types are
// servicebus.windows.net:sastoken and jwt; the host checks them
// (ParseSAS, SAS.Verify and Covers are the SAS helpers) and returns a
// Grant. Grants are kept per audience; a put-token for the same audience
// renews it. Every attach, every delivery received and every read for a
// receiver looks a live grant up, so an expired token that was not renewed
// detaches the link with amqp:unauthorized-access, and Server.RevokeKey
// closes the connections holding a grant of a regenerated key.
//
// A SAS signature is checked over the resource exactly as written in the
// token's sr (the SDKs escape it in lower case, .NET's samples in upper
// case), "\n", then se. Covers compares paths only: the resource's path
// must be the audience's or a parent of it; hosts are not compared, as the
// emulator answers on any host name.
//
// # Management
//
// The $management node answers READ of com.microsoft:eventhub (name,
// created_at, partition_count, partition_ids as an array of strings) and
// com.microsoft:partition (begin_sequence_number,
// last_enqueued_sequence_number, last_enqueued_offset as a string,
// last_enqueued_time_utc, is_partition_empty), with status-code 200. The
// request's security_token is checked when present; otherwise the
// connection needs a grant for the hub with any claim. Replies go to the
// client's receiving link on the node whose target is the request's
// reply-to, correlated by the request's message-id.
//
// # Sending
//
// A client sends on <hub> (partition -1: the host places events by
// partition key) or <hub>/Partitions/<n>. The door's attach announces
// max-message-size Options.MaxMessageSize (1 MiB, Fabric's event limit),
// which the SDKs use to size their batches. A delivery may span many
// transfer frames; it is reassembled, and one larger than the limit is
// counted but not kept, then rejected with amqp:link:message-size-exceeded
// and the service's wording ("The received message (delivery-id:…,
// size:… bytes) exceeds the limit (… bytes) currently allowed on the
// link."), which the SDKs turn into their message-size errors. Message format 0x80013700
// is a batch: each data section is one event, and the batch's
// x-opt-partition-key applies to events without their own. An Event keeps
// the body (data sections joined), properties, application properties and
// partition key; the decoded message is kept too for amqp-value and
// amqp-sequence bodies. Host.Send returning nil accepts the delivery;
// an error rejects it with the condition its sentinel names
// (ErrUnauthorized: amqp:unauthorized-access, ErrNotFound: amqp:not-found,
// ErrServerBusy: com.microsoft:server-busy, ErrTooLarge:
// amqp:link:message-size-exceeded, an *amqp.Error as it is, anything else
// amqp:internal-error). A failure of a delivery the client sent settled
// detaches the link with that error.
//
// # Receiving
//
// A client receives on <hub>/ConsumerGroups/<group>/Partitions/<n>. The
// start position comes from the apache.org:selector-filter:string filter
// (by symbol or code) on amqp.annotation.x-opt-offset,
// x-opt-sequence-number or x-opt-enqueued-time (milliseconds since the
// epoch), with > or >=; offset '-1' is the earliest event and '@latest'
// (or no filter) the events after the partition's last at attach time. The
// link property com.microsoft:epoch is the owner level: a receiver with an
// owner level greater than or equal to the current ones takes the
// partition over and the others are detached with amqp:link:stolen and
// Event Hubs' description; a lower owner level, or none while one is
// held, is refused with amqp:link:stolen; at most 5 receivers without an
// owner level share a partition of a consumer group
// (amqp:resource-limit-exceeded). The door reads from the host as the
// client grants credit (prefetch), at most 1,024 events at a time, polls
// every PollInterval while nothing is there, honours drain, sends
// deliveries settled (as Event Hubs does: the SDKs never settle what they
// receive) unless the client's snd-settle-mode asks for unsettled ones,
// and
// annotates every message with x-opt-sequence-number (long), x-opt-offset
// (string), x-opt-enqueued-time (timestamp) and x-opt-partition-key.
// Outcomes the client sends (accepted, rejected, released, modified)
// settle the delivery; Event Hubs does not redeliver, and neither does the
// door.
package eventhubs
