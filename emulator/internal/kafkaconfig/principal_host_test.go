package kafkaconfig

import (
	"context"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/sasl"
)

// An IP address names the service principal after the host it resolves
// back to, as the Java client's InetAddress.getHostName does; a host name
// stays as written.
func TestPrincipalHost(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	for in, want := range map[string]string{
		"127.0.0.1":       "localhost",
		"broker.internal": "broker.internal",
		"localhost":       "localhost",
	} {
		if got := principalHost(ctx, in); got != want {
			t.Errorf("principalHost(%q) = %q, want %q", in, got, want)
		}
	}
}

// recordingMechanism remembers the host it was asked to authenticate to.
type recordingMechanism struct{ host *string }

func (recordingMechanism) Name() string { return "GSSAPI" }
func (m recordingMechanism) Authenticate(_ context.Context, host string) (sasl.Session, []byte, error) {
	*m.host = host
	return nil, nil, nil
}
func (recordingMechanism) Close() {}

// The mechanism hands franz-go's Kerberos code the principal's host with
// the port kept.
func TestJavaNamedMechanism(t *testing.T) {
	var got string
	m := javaNamed{recordingMechanism{&got}}
	if _, _, err := m.Authenticate(context.Background(), "127.0.0.1:9092"); err != nil || got != "localhost:9092" {
		t.Fatalf("authenticated to %q (%v), want localhost:9092", got, err)
	}
}
