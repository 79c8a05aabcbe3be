package emulator

import (
	"errors"
	"strings"
)

// amqpSettings is what WithAMQPEndpoint and WithAMQPEndpointAdvertised set.
type amqpSettings struct {
	addr string // listen address; "off" disables the door
	adv  string // host:port connection strings name ("": the listener's)
}

// WithAMQPEndpoint sets the listen address of the custom endpoint's Event
// Hubs surface (AMQP 1.0, as the Event Hubs SDKs speak it; AMQPS with
// WithTLS): the address the connection strings of CustomEndpoint nodes
// name in their Endpoint (its host alone) when it is on its default port
// (5672, or 5671 with TLS); on other ports, unless advertised, the strings
// name the Kafka endpoint, which takes AMQP connections too. The default is a
// free loopback port; "off" turns Event Hubs off, on this listener and on
// the Kafka endpoint. The standalone binary listens on 127.0.0.1:5672
// (5671 with --tls), Event Hubs' ports.
func WithAMQPEndpoint(addr string) Option {
	return func(c *config) error {
		if strings.TrimSpace(addr) == "" {
			return errors.New("amqp endpoint: empty address; want host:port or off")
		}
		c.amqp.addr = addr
		return nil
	}
}

// WithAMQPEndpointAdvertised sets the host:port connection strings name
// when Event Hubs clients reach the AMQP endpoint by another address than
// it listens on (an emulator in a container: the mapped port).
func WithAMQPEndpointAdvertised(hostport string) Option {
	return func(c *config) error { c.amqp.adv = strings.TrimSpace(hostport); return nil }
}
