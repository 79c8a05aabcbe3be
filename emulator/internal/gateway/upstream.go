package gateway

import (
	"bufio"
	"context"
	"crypto/tls"
	"encoding/binary"
	"errors"
	"fmt"
	"net"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
	"github.com/twmb/franz-go/pkg/sasl"
)

// A secured upstream cluster (the emulator's --kafka-config): the gateway
// opens each upstream connection with TLS and logs in with SASL itself,
// before it forwards the client's first request. Clients of the endpoint
// never see the cluster's credentials; they authenticate to the gateway with
// their connection string as before.

// upstreamSecurity is how the gateway reaches a secured cluster.
type upstreamSecurity struct {
	tls  *tls.Config    // nil: plain TCP
	sasl sasl.Mechanism // nil: no login
}

// WithUpstreamSecurity makes the gateway reach its upstream cluster with TLS
// (c, nil for plain TCP) and log in with mechanism m (nil for none).
func WithUpstreamSecurity(c *tls.Config, m sasl.Mechanism) Option {
	return func(g *Gateway) { g.upSec = upstreamSecurity{tls: c, sasl: m} }
}

// secure wraps a freshly dialled upstream connection: the TLS handshake,
// then the SASL login, within dialTimeout.
func (u upstreamSecurity) secure(ctx context.Context, c net.Conn, addr string) (net.Conn, error) {
	ctx, cancel := context.WithTimeout(ctx, dialTimeout)
	defer cancel()
	if u.tls != nil {
		cfg := u.tls.Clone()
		if cfg.ServerName == "" {
			host, _, _ := net.SplitHostPort(addr)
			cfg.ServerName = host
		}
		tc := tls.Client(c, cfg)
		if err := tc.HandshakeContext(ctx); err != nil {
			return nil, fmt.Errorf("tls handshake with %s: %w", addr, err)
		}
		c = tc
	}
	if u.sasl == nil {
		return c, nil
	}
	if dl, ok := ctx.Deadline(); ok {
		_ = c.SetDeadline(dl)
		defer c.SetDeadline(time.Time{})
	}
	if err := login(ctx, c, u.sasl, addr); err != nil {
		return nil, fmt.Errorf("sasl %s login to %s: %w", u.sasl.Name(), addr, err)
	}
	return c, nil
}

// login runs SaslHandshake v1 and SaslAuthenticate v1 on c. The mechanism
// is given the broker's host:port, as franz-go gives it (GSSAPI asks for a
// ticket to <service>/<host>); a session done with a last message of its
// own (GSSAPI's) sends it before the login ends, as franz-go does.
func login(ctx context.Context, c net.Conn, m sasl.Mechanism, addr string) error {
	rw := bufio.NewReadWriter(bufio.NewReader(c), bufio.NewWriter(c))
	hs := kmsg.NewPtrSASLHandshakeRequest()
	hs.Version, hs.Mechanism = 1, m.Name()
	hsResp := kmsg.NewPtrSASLHandshakeResponse()
	if err := roundTrip(rw, hs, hsResp, 1); err != nil {
		return err
	}
	if err := kerr.ErrorForCode(hsResp.ErrorCode); err != nil {
		return fmt.Errorf("handshake: %w (enabled: %v)", err, hsResp.SupportedMechanisms)
	}
	session, msg, err := m.Authenticate(ctx, addr)
	if err != nil {
		return err
	}
	done := false
	for id := int32(2); ; id++ {
		req := kmsg.NewPtrSASLAuthenticateRequest()
		req.Version, req.SASLAuthBytes = 1, msg
		resp := kmsg.NewPtrSASLAuthenticateResponse()
		if err := roundTrip(rw, req, resp, id); err != nil {
			return err
		}
		if err := kerr.ErrorForCode(resp.ErrorCode); err != nil {
			if resp.ErrorMessage != nil {
				return fmt.Errorf("%w: %s", err, *resp.ErrorMessage)
			}
			return err
		}
		if done {
			return nil
		}
		var next []byte
		if done, next, err = session.Challenge(resp.SASLAuthBytes); err != nil {
			return err
		}
		if done && len(next) == 0 {
			return nil
		}
		msg = next
	}
}

// roundTrip writes req (a non-flexible version) with a v1 request header
// and reads its response.
func roundTrip(rw *bufio.ReadWriter, req kmsg.Request, resp kmsg.Response, id int32) error {
	hdr := binary.BigEndian.AppendUint16(nil, uint16(req.Key()))
	hdr = binary.BigEndian.AppendUint16(hdr, uint16(req.GetVersion()))
	hdr = binary.BigEndian.AppendUint32(hdr, uint32(id))
	hdr = binary.BigEndian.AppendUint16(hdr, uint16(len(upstreamClientID)))
	hdr = append(hdr, upstreamClientID...)
	if err := writeFrame(rw.Writer, hdr, req.AppendTo(nil)); err != nil {
		return fmt.Errorf("write %s: %w", kmsg.NameForKey(req.Key()), err)
	}
	if err := rw.Flush(); err != nil {
		return fmt.Errorf("write %s: %w", kmsg.NameForKey(req.Key()), err)
	}
	frame, err := readFrame(rw.Reader, maxFrame)
	if err != nil {
		return fmt.Errorf("read %s response: %w", kmsg.NameForKey(req.Key()), err)
	}
	if len(frame) < 4 || int32(binary.BigEndian.Uint32(frame)) != id {
		return errors.New("response out of order")
	}
	resp.SetVersion(req.GetVersion())
	if err := resp.ReadFrom(frame[4:]); err != nil {
		return fmt.Errorf("parse %s response: %w", kmsg.NameForKey(req.Key()), err)
	}
	return nil
}

// upstreamClientID is the client id of the gateway's login requests.
const upstreamClientID = "fabric-emulator-endpoint"
