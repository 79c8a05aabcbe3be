package kafkaconfig

import (
	"context"
	"net"
	"strings"

	"github.com/twmb/franz-go/pkg/sasl"
)

// principalHost is the host part of a broker's service principal
// (<service>/<host>@<realm>), named as the Java client names it: the host
// as written, but an IP address as the name it resolves back to
// (InetAddress.getHostName), so that bootstrap.servers=127.0.0.1:9092 asks
// for kafka/localhost as it does there. An address without a name stays.
func principalHost(ctx context.Context, host string) string {
	if net.ParseIP(host) == nil {
		return host
	}
	names, err := net.DefaultResolver.LookupAddr(ctx, host)
	if err != nil || len(names) == 0 {
		return host
	}
	return strings.TrimSuffix(names[0], ".")
}

// closingMechanism is franz-go's GSSAPI mechanism with its Close.
type closingMechanism interface {
	sasl.Mechanism
	sasl.ClosingMechanism
}

// javaNamed wraps franz-go's GSSAPI mechanism so that the host it is handed
// (host:port) is named by principalHost first; Close passes through.
type javaNamed struct {
	closingMechanism
}

// Authenticate starts a GSSAPI session for the broker at hostport.
func (m javaNamed) Authenticate(ctx context.Context, hostport string) (sasl.Session, []byte, error) {
	if h, port, err := net.SplitHostPort(hostport); err == nil {
		hostport = net.JoinHostPort(principalHost(ctx, h), port)
	}
	return m.closingMechanism.Authenticate(ctx, hostport)
}
