package control

import (
	"cmp"
	"net"
	"strings"

	"github.com/fabrictest/fabrictest/emulator/internal/fabricerr"
	"github.com/fabrictest/fabrictest/emulator/internal/kafkaconfig"
	"github.com/fabrictest/fabrictest/emulator/internal/runtime"
)

// The settings of a registered connection: {"bootstrapServers":
// "host:port,…", "securityProtocol": "PLAINTEXT|SASL_PLAINTEXT|SSL|SASL_SSL",
// "saslMechanism": "PLAIN|SCRAM-SHA-256|SCRAM-SHA-512", "username",
// "password", "caCertificates", "clientCertificate", "clientKey"}, or an
// Event Hubs "connectionString". The last three are PEM standing in for
// the Key Vault certificates of a source's tlsSettings.

// CheckConnection validates k in place, filling the defaults (security
// protocol, SASL mechanism) and what a connection string stands for.
func CheckConnection(k *runtime.KafkaConnection) error {
	if k.Server != "" || k.Database != "" {
		return checkDatabaseConnection(k)
	}
	if err := eventHubConnection(k); err != nil {
		return err
	}
	var seeds []string
	for _, h := range strings.Split(k.BootstrapServers, ",") {
		if h = strings.TrimSpace(h); h == "" {
			continue
		}
		if i := strings.LastIndex(h, ":"); i <= 0 || i == len(h)-1 {
			return fabricerr.BadParameter("bootstrapServers", "%q is not host:port", h)
		}
		seeds = append(seeds, h)
	}
	if len(seeds) == 0 {
		return fabricerr.BadParameter("bootstrapServers", "required: a comma-separated host:port list")
	}
	k.BootstrapServers = strings.Join(seeds, ",")
	if k.SecurityProtocol == "" {
		k.SecurityProtocol = "PLAINTEXT"
		if k.SASLMechanism != "" || k.Username != "" {
			k.SecurityProtocol = "SASL_PLAINTEXT"
		}
	}
	p, ok := OneOf(k.SecurityProtocol, SecurityProtocols)
	if !ok {
		return fabricerr.BadParameter("securityProtocol", "%q is not one of %s", k.SecurityProtocol, strings.Join(SecurityProtocols, ", "))
	}
	k.SecurityProtocol = p
	if err := checkConnectionTLS(k); err != nil {
		return err
	}
	if !strings.HasPrefix(p, "SASL_") {
		if k.SASLMechanism != "" || k.Username != "" || k.Password != "" {
			return fabricerr.BadParameter("securityProtocol", "%s takes no saslMechanism, username or password; use SASL_PLAINTEXT or SASL_SSL", p)
		}
		return nil
	}
	if k.SASLMechanism == "" {
		k.SASLMechanism = "PLAIN"
	}
	m, ok := OneOf(k.SASLMechanism, SASLMechanisms)
	if !ok {
		return fabricerr.BadParameter("saslMechanism", "%q is not one of %s", k.SASLMechanism, strings.Join(SASLMechanisms, ", "))
	}
	k.SASLMechanism = m
	if k.Username == "" || k.Password == "" {
		return fabricerr.BadParameter("username", "%s needs a username and a password", p)
	}
	return nil
}

// checkConnectionTLS checks the PEM a connection holds for its sources'
// tlsSettings: only under SSL and SASL_SSL, parsed as Kafka's PEM stores are.
func checkConnectionTLS(k *runtime.KafkaConnection) error {
	if k.CACertificates == "" && k.ClientCertificate == "" && k.ClientKey == "" {
		return nil
	}
	if !strings.HasSuffix(k.SecurityProtocol, "SSL") {
		return fabricerr.BadParameter("securityProtocol", "%s has no TLS for caCertificates, clientCertificate or clientKey; use SSL or SASL_SSL", k.SecurityProtocol)
	}
	p := kafkaconfig.Properties{"security.protocol": kafkaconfig.SSL}
	if k.CACertificates != "" {
		p["ssl.truststore.type"], p["ssl.truststore.certificates"] = "PEM", k.CACertificates
	}
	if k.ClientCertificate != "" || k.ClientKey != "" {
		p["ssl.keystore.type"] = "PEM"
		p["ssl.keystore.certificate.chain"], p["ssl.keystore.key"] = k.ClientCertificate, k.ClientKey
	}
	if _, err := kafkaconfig.Parse(p); err != nil {
		field := map[string]string{"ssl.truststore.certificates": "caCertificates", "ssl.keystore.certificate.chain": "clientCertificate", "ssl.keystore.key": "clientKey"}
		for key, name := range field {
			if strings.HasPrefix(err.Error(), "kafka config "+key+":") {
				return fabricerr.BadParameter(name, "%s", strings.TrimPrefix(err.Error(), "kafka config "+key+": "))
			}
		}
		return fabricerr.BadParameter("caCertificates", "%v", err)
	}
	return nil
}

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
func eventHubConnection(k *runtime.KafkaConnection) error {
	cs := strings.TrimSpace(k.ConnectionString)
	if cs == "" {
		return nil
	}
	if k.BootstrapServers != "" || k.Username != "" || k.Password != "" || k.SASLMechanism != "" {
		return fabricerr.BadParameter("connectionString", "give either a connectionString or bootstrapServers with username and password, not both")
	}
	f := connectionStringFields(cs)
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
	k.SASLMechanism, k.Username, k.Password = "PLAIN", ConnectionUser, cs
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

// connectionStringFields splits an Event Hubs connection string into its
// case-insensitive key=value fields.
func connectionStringFields(s string) map[string]string {
	out := map[string]string{}
	for part := range strings.SplitSeq(s, ";") {
		if k, v, ok := strings.Cut(strings.TrimSpace(part), "="); ok {
			out[strings.ToLower(k)] = strings.TrimSpace(v)
		}
	}
	return out
}

// Database connections: a PostgreSQLCDC or MySQLCDC source names a
// connection registered with {"workspaceId", "server": "host[:port]",
// "database", "username", "password"} (Fabric's connection for these
// sources: server, database, Basic authentication).

// checkDatabaseConnection validates a database connection.
func checkDatabaseConnection(k *runtime.KafkaConnection) error {
	k.Server, k.Database = strings.TrimSpace(k.Server), strings.TrimSpace(k.Database)
	switch {
	case k.Server == "":
		return fabricerr.BadParameter("server", "required: the database server's host (or host:port)")
	case k.Database == "":
		return fabricerr.BadParameter("database", "required: the database the source reads")
	case k.Username == "" || k.Password == "":
		return fabricerr.BadParameter("username", "a database connection needs a username and a password (Basic authentication)")
	case k.BootstrapServers != "" || k.ConnectionString != "" || k.SecurityProtocol != "" || k.SASLMechanism != "" ||
		k.CACertificates != "" || k.ClientCertificate != "" || k.ClientKey != "":
		return fabricerr.BadParameter("server", "a database connection (server, database) takes no Kafka or Event Hubs settings")
	}
	if h, p, err := net.SplitHostPort(k.Server); err == nil && (h == "" || p == "") {
		return fabricerr.BadParameter("server", "%q is not host or host:port", k.Server)
	}
	return nil
}
