// Package gateway is the emulator's Event Hubs-style Kafka endpoint: a proxy
// that speaks the Kafka wire protocol, terminates SASL PLAIN authentication
// itself and forwards everything else to an upstream Kafka cluster (franz-go's
// kfake or a real Apache Kafka).
//
// Fabric's custom endpoint hands Kafka users a connection string
//
//	Endpoint=sb://HOST:PORT/;SharedAccessKeyName=key_…;SharedAccessKey=…;EntityPath=TOPIC
//
// which clients present with SASL PLAIN as username "$ConnectionString" and
// the whole string as password. The gateway passes the credentials to an
// Authenticator and refuses a wrong key the way a broker does: SaslAuthenticate
// answers SASL_AUTHENTICATION_FAILED with the authenticator's message, then the
// connection closes. An authenticated connection gets a Grant: one topic it may
// produce to and consume from, and optionally a prefix that scopes its consumer
// group ids upstream.
//
// Every request is checked against the grant. Foreign topics are answered
// locally with TOPIC_AUTHORIZATION_FAILED and never reach the upstream (Apache
// Kafka would auto-create them); Metadata lists only the granted topic and
// points every broker and coordinator at the gateway's advertised address.
// A produce's record batches are forwarded as sent, compressed or not; the
// upstream refuses a compressed batch that does not decompress to its
// records with UNKNOWN_SERVER_ERROR (Apache Kafka itself; the emulator's
// embedded kfake through broker.CheckCompressedBatches), and that answer
// reaches the client as any other.
// Requests the gateway does not understand (topic and ACL administration,
// transactions, configs, …) close the connection, and ApiVersions stops
// advertising them.
//
// A connection has 10 seconds (WithAuthTimeout) from its opening to finish
// SASL, and until it has, a request frame over 64 KiB closes it, as a broker
// closes a connection on a frame size it refuses. After SASL a frame may be
// up to 100 MiB. Either way a frame's buffer grows as its bytes arrive, so a
// client that declares a large frame and sends little of it holds little.
//
// With WithTLS every listener serves TLS first: the endpoint is SASL_SSL, as
// Event Hubs' is, and clients keep the settings Fabric gives them. Without it
// the endpoint is SASL_PLAINTEXT. A client on the wrong protocol is closed
// after one log line that names the setting to change.
//
// With WithAMQP the listeners take Event Hubs clients too: a connection whose
// first bytes (after TLS) are the AMQP protocol header goes to the handler,
// those bytes unread, so one port serves both protocols. A Kafka request
// cannot start that way (its size would be over a gigabyte), and bytes that
// start like the header but are not it close the connection with a log line.
package gateway
