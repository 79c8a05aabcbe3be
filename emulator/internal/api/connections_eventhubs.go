package api

import (
	"cmp"
	"net"
	"strings"

	"github.com/fabrictest/fabrictest/emulator/internal/fabricerr"
)

// Event Hubs connections: an AzureEventHub or AzureIoTHub source names a
// connection registered with {"workspaceId", "connectionString":
// "Endpoint=sb://NAMESPACE/;SharedAccessKeyName=…;SharedAccessKey=…;EntityPath=HUB"}
// (an IoT Hub's Event Hub-compatible built-in endpoint has the same form).
// The emulator reads it through Event Hubs' Kafka surface: bootstrap
// NAMESPACE:9093, SASL_SSL, SASL PLAIN with username "$ConnectionString"
// and the whole string as password, topic HUB. A port in the Endpoint
// (another emulator's custom endpoint, sb://127.0.0.1:PORT/) is kept;
// UseDevelopmentEmulator=true (the Event Hubs emulator) means port 9092 and
// SASL_PLAINTEXT. securityProtocol, when given, wins (SASL_PLAINTEXT for an
// emulator endpoint without TLS).

// eventHubConnection fills k from its connection string, when it has one.
func eventHubConnection(k *kafkaConnection) error {
	cs := strings.TrimSpace(k.ConnectionString)
	if cs == "" {
		return nil
	}
	if k.BootstrapServers != "" || k.Username != "" || k.Password != "" || k.SASLMechanism != "" {
		return fabricerr.BadParameter("connectionString", "give either a connectionString or bootstrapServers with username and password, not both")
	}
	f := parseConnectionString(cs)
	host, port, err := endpointHost(f["endpoint"])
	if err != nil {
		return err
	}
	if f["entitypath"] == "" {
		return fabricerr.BadParameter("connectionString", "the connection string has no EntityPath: use the event hub's own connection string (or add ;EntityPath=HUB)")
	}
	proto := "SASL_SSL"
	if strings.EqualFold(f["usedevelopmentemulator"], "true") {
		proto = "SASL_PLAINTEXT"
		if port == "" {
			port = "9092"
		}
	}
	if k.SecurityProtocol == "" {
		k.SecurityProtocol = proto
	}
	if !strings.HasPrefix(strings.ToUpper(k.SecurityProtocol), "SASL_") {
		return fabricerr.BadParameter("securityProtocol", "a connection string authenticates with SASL: use SASL_SSL or SASL_PLAINTEXT")
	}
	k.BootstrapServers = net.JoinHostPort(host, cmp.Or(port, "9093"))
	k.SASLMechanism, k.Username, k.Password = "PLAIN", connectionUser, cs
	k.EventHub, k.ConnectionString = f["entitypath"], ""
	return nil
}

// endpointHost splits a connection string's Endpoint, sb://HOST[:PORT]/.
func endpointHost(ep string) (host, port string, err error) {
	rest, ok := strings.CutPrefix(strings.ToLower(strings.TrimSpace(ep)), "sb://")
	rest = strings.TrimSuffix(rest, "/")
	if !ok || rest == "" || strings.Contains(rest, "/") {
		return "", "", fabricerr.BadParameter("connectionString", "Endpoint must be sb://NAMESPACE/ (got %q)", ep)
	}
	if h, p, err := net.SplitHostPort(rest); err == nil {
		return h, p, nil
	}
	return rest, "", nil
}
