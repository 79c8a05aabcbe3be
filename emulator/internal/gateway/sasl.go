package gateway

import (
	"bytes"
	"errors"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// mechanism is the one SASL mechanism the gateway offers.
const mechanism = "PLAIN"

// saslHandshake answers SaslHandshake locally. Version 1 is followed by
// SaslAuthenticate requests; version 0 (kafka-python 2.0) by one bare token.
func (s *session) saslHandshake(r *request, req *kmsg.SASLHandshakeRequest) action {
	if s.authed || s.handshake >= 0 {
		return action{refuse: "SaslHandshake repeated"}
	}
	resp := req.ResponseKind().(*kmsg.SASLHandshakeResponse)
	resp.SetVersion(r.version)
	resp.SupportedMechanisms = []string{mechanism}
	if req.Mechanism != mechanism {
		s.log.Warn("kafka gateway: SASL mechanism refused", "mechanism", req.Mechanism)
		resp.ErrorCode = kerr.UnsupportedSaslMechanism.Code
		return action{local: resp, closeAfter: true}
	}
	s.handshake = r.version
	s.rawToken = r.version == 0
	return action{local: resp}
}

// saslAuthenticate answers SaslAuthenticate locally: the token is checked
// by the gateway's Authenticator; a refusal is answered with
// SASL_AUTHENTICATION_FAILED and the authenticator's message, then the
// connection closes.
func (s *session) saslAuthenticate(r *request, req *kmsg.SASLAuthenticateRequest) action {
	if s.authed || s.handshake != 1 {
		return action{refuse: "SaslAuthenticate without a SaslHandshake v1 before it"}
	}
	resp := req.ResponseKind().(*kmsg.SASLAuthenticateResponse)
	resp.SetVersion(r.version)
	if _, err := s.checkPlain(req.SASLAuthBytes); err != nil {
		msg := err.Error()
		resp.ErrorCode = kerr.SaslAuthenticationFailed.Code
		resp.ErrorMessage = &msg
		return action{local: resp, closeAfter: true}
	}
	return action{local: resp}
}

// parsePlain splits a PLAIN token: authzid NUL username NUL password.
func parsePlain(token []byte) (user, pass string, err error) {
	parts := bytes.SplitN(token, []byte{0}, 3)
	if len(parts) != 3 {
		return "", "", errors.New("malformed SASL PLAIN token")
	}
	if len(parts[1]) == 0 {
		return "", "", errors.New("SASL PLAIN token without a username")
	}
	return string(parts[1]), string(parts[2]), nil
}
