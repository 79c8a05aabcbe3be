package emulator

import (
	"errors"
	"fmt"
	"net"
	"strconv"
)

// errAMQPOff answers an advertisement when there is no Event Hubs
// endpoint; the API and fabric-emulator advertise-endpoint say "is off".
var errAMQPOff = errors.New("the emulator's Event Hubs (AMQP) endpoint is off")

// advertiseAMQP makes hostport the address connection strings name for the
// Event Hubs endpoint from now on, for an endpoint published on a port
// chosen after the emulator started (a container's mapped port). The
// server certificate gains the host first.
func (s *Server) advertiseAMQP(hostport string) error {
	if s.ehLn == nil {
		return errAMQPOff
	}
	host, port, err := net.SplitHostPort(hostport)
	if err != nil {
		return fmt.Errorf("parse advertised address: %w", err)
	}
	if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 || host == "" {
		return fmt.Errorf("parse advertised address %q: want host:port with a port in 1-65535", hostport)
	}
	if err := s.nameTLS(host); err != nil {
		return err
	}
	s.ehAdv.Store(&hostport)
	return nil
}

// AdvertiseAMQP implements the API's view of the Event Hubs door.
func (a tlsAdvertiser) AdvertiseAMQP(hostport string) error { return a.s.advertiseAMQP(hostport) }
