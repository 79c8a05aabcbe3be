package control

import (
	"fmt"
	"net"
)

// Namespace is the fullyQualifiedNamespace of a Kafka endpoint at addr:
// its host alone on Event Hubs' Kafka port 9093 (clients that append
// ":9093" keep working), host:port otherwise.
func Namespace(addr string) string {
	if host, port, err := net.SplitHostPort(addr); err == nil && port == "9093" {
		return host
	}
	return addr
}

// AMQPEndpointName is what a connection string's Endpoint names for Event
// Hubs clients, given the Event Hubs endpoint's address, whether it speaks
// AMQPS, whether it was advertised, and the Kafka endpoint's address: the
// host alone on AMQP's default port (5672, or 5671 with TLS: Fabric's
// shape, and the one port the Java SDK dials); its host:port when
// advertised (an emulator in a container learns its published port);
// otherwise the Kafka endpoint, which takes AMQP connections too, so that
// Endpoint agrees with fullyQualifiedNamespace.
func AMQPEndpointName(amqpAddr string, tls, advertised bool, kafkaAddr string) string {
	std := "5672"
	if tls {
		std = "5671"
	}
	switch host, port, err := net.SplitHostPort(amqpAddr); {
	case err == nil && port == std:
		return host
	case advertised:
		return amqpAddr
	}
	return kafkaAddr
}

// ConnectionString is Fabric's form of a custom endpoint connection string
// naming endpoint; plain AMQP adds UseDevelopmentEmulator=true, which the
// Event Hubs SDKs need to speak AMQP without TLS.
func ConnectionString(endpoint, keyName, key, entity string, plain bool) string {
	dev := ""
	if plain {
		dev = "UseDevelopmentEmulator=true;"
	}
	return fmt.Sprintf("Endpoint=sb://%s/;SharedAccessKeyName=%s;SharedAccessKey=%s;%sEntityPath=%s", endpoint, keyName, key, dev, entity)
}
