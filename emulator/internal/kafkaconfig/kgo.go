package kafkaconfig

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/sasl"
	"github.com/twmb/franz-go/pkg/sasl/plain"
	"github.com/twmb/franz-go/pkg/sasl/scram"
)

// Opts are the franz-go options that reach the cluster as c says: TLS under
// SSL and SASL_SSL, SASL under SASL_*, and the client id.
func (c Config) Opts() []kgo.Opt {
	var opts []kgo.Opt
	if c.TLS != nil {
		opts = append(opts, kgo.DialTLSConfig(c.TLS.Clone()))
	}
	if m := c.Mechanism(); m != nil {
		opts = append(opts, kgo.SASL(m))
	}
	if c.ClientID != "" {
		opts = append(opts, kgo.ClientID(c.ClientID))
	}
	return opts
}

// Mechanism is the SASL mechanism of c, nil without SASL. Under GSSAPI each
// call has a Kerberos login of its own, ended when the franz-go client that
// uses it closes.
func (c Config) Mechanism() sasl.Mechanism {
	switch c.SASLMechanism {
	case GSSAPI:
		return c.Kerberos.mechanism()
	case PLAIN:
		return plain.Auth{User: c.Username, Pass: c.Password}.AsMechanism()
	case ScramSHA256:
		return scram.Auth{User: c.Username, Pass: c.Password}.AsSha256Mechanism()
	case ScramSHA512:
		return scram.Auth{User: c.Username, Pass: c.Password}.AsSha512Mechanism()
	}
	return nil
}

// Probe connects to seeds as c says and asks for the cluster's metadata, so
// that a wrong password, an untrusted CA or a protocol mismatch fails at
// start rather than at the first produce. Under GSSAPI it logs in to the KDC
// first, so that a KDC out of reach or an unknown principal is named as
// such. Its error says which it was.
func (c Config) Probe(ctx context.Context, seeds []string) error {
	if c.Kerberos != nil {
		if err := c.Kerberos.login(seeds); err != nil {
			return err
		}
	}
	opts := append([]kgo.Opt{kgo.SeedBrokers(seeds...), kgo.DialTimeout(5 * time.Second),
		kgo.RequestRetries(0), kgo.RetryTimeout(5 * time.Second)}, c.Opts()...)
	cl, err := kgo.NewClient(opts...)
	if err != nil {
		return fmt.Errorf("connect kafka: %w", err)
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	var last error
	// A broker still starting refuses connections: that is tried again until
	// the deadline; anything else three times.
	for tries := 0; ctx.Err() == nil; {
		if last = cl.Ping(ctx); last == nil {
			return nil
		}
		if !dialRefused(last) {
			tries++
		}
		if fatal(last) || (c.Kerberos != nil && kerberosErr(last)) || tries == 3 {
			break
		}
		select {
		case <-ctx.Done():
		case <-time.After(250 * time.Millisecond):
		}
	}
	return c.explain(seeds, last)
}

// fatal reports whether err will not go away by trying again.
func fatal(err error) bool {
	var ue x509.UnknownAuthorityError
	var he x509.HostnameError
	var ce x509.CertificateInvalidError
	var re tls.RecordHeaderError
	return errors.Is(err, kerr.SaslAuthenticationFailed) || errors.Is(err, kerr.UnsupportedSaslMechanism) ||
		errors.Is(err, kerr.IllegalSaslState) || errors.As(err, &ue) || errors.As(err, &he) ||
		errors.As(err, &ce) || errors.As(err, &re) || tlsAlert(err) != nil
}

// dialRefused reports whether err is a refused TCP connection.
func dialRefused(err error) bool {
	var oe *net.OpError
	return errors.As(err, &oe) && oe.Op == "dial"
}

// tlsAlert is the alert the broker's TLS layer sent, nil when none.
func tlsAlert(err error) error {
	var oe *net.OpError
	if errors.As(err, &oe) && oe.Op == "remote error" {
		return oe.Err
	}
	var ae tls.AlertError
	if errors.As(err, &ae) {
		return ae
	}
	return nil
}

// explain wraps a failed probe's error with its likely cause, naming the
// setting to look at.
func (c Config) explain(seeds []string, err error) error {
	where := strings.Join(seeds, ",")
	var ue x509.UnknownAuthorityError
	var he x509.HostnameError
	var re tls.RecordHeaderError
	alert := tlsAlert(err)
	switch {
	case c.Kerberos != nil && errors.Is(err, kerr.SaslAuthenticationFailed):
		return fmt.Errorf("kafka at %s refused the GSSAPI login of principal %s (does the broker's keytab hold the current key of its service principal %s/<host>@%s?): %w", where, c.Kerberos.Name(), c.Kerberos.ServiceName, c.Kerberos.Realm, err)
	case c.Kerberos != nil && err != nil && kerberosErr(err):
		return fmt.Errorf("kafka at %s: %w", where, c.Kerberos.explain(err, ""))
	case errors.Is(err, kerr.SaslAuthenticationFailed):
		return fmt.Errorf("kafka at %s refused the SASL %s login of user %q (wrong username or password in sasl.jaas.config?): %w", where, c.SASLMechanism, c.Username, err)
	case errors.Is(err, kerr.UnsupportedSaslMechanism):
		return fmt.Errorf("kafka at %s does not enable sasl.mechanism %s: %w", where, c.SASLMechanism, err)
	case errors.As(err, &ue):
		return fmt.Errorf("kafka at %s presented a certificate signed by an untrusted CA (%s); set ssl.truststore.location to the CA that signed it: %w", where, ue.Cert.Issuer, err)
	case errors.As(err, &he):
		return fmt.Errorf("kafka at %s presented a certificate for other host names; fix its certificate, or set ssl.endpoint.identification.algorithm= (empty) to skip the check: %w", where, err)
	case errors.As(err, &re):
		return fmt.Errorf("kafka at %s does not speak TLS (is security.protocol %s right?): %w", where, c.SecurityProtocol, err)
	case alert != nil && c.CertPEM == "":
		return fmt.Errorf("kafka at %s ended the TLS handshake (%v); it requires a client certificate (ssl.keystore.location): %w", where, alert, err)
	case alert != nil:
		return fmt.Errorf("kafka at %s ended the TLS handshake (%v); does it trust the CA of the client certificate (ssl.keystore.location)?: %w", where, alert, err)
	case dialRefused(err):
		return fmt.Errorf("kafka at %s cannot be reached: %w", where, err)
	case err == nil:
		return fmt.Errorf("kafka at %s did not answer in time", where)
	case c.SASLMechanism != "":
		return fmt.Errorf("kafka at %s closed the connection before answering as security.protocol %s with SASL %s; check the protocol and the credentials in sasl.jaas.config: %w", where, c.SecurityProtocol, c.SASLMechanism, err)
	}
	return fmt.Errorf("kafka at %s did not answer a metadata request as security.protocol %s (does the listener speak it?): %w", where, c.SecurityProtocol, err)
}
