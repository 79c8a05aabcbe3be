package eventhubs

import (
	"encoding/base64"
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestSASRoundTrip signs a token as the SDKs do, parses and verifies it.
func TestSASRoundTrip(t *testing.T) {
	exp := time.Unix(1900000000, 0)
	tok := SignSAS("amqp://127.0.0.1:5672/es", "key_x", testKey, exp)
	if !strings.HasPrefix(tok, "SharedAccessSignature sr=amqp%3a%2f%2f127.0.0.1%3a5672%2fes&sig=") || !strings.HasSuffix(tok, "&se=1900000000&skn=key_x") {
		t.Fatalf("token %q does not have Event Hubs' shape", tok)
	}
	s, err := ParseSAS(tok)
	if err != nil {
		t.Fatal(err)
	}
	if s.Resource != "amqp://127.0.0.1:5672/es" || s.KeyName != "key_x" || !s.Expiry.Equal(exp) {
		t.Fatalf("parsed %+v", s)
	}
	if err := s.Verify(testKey, exp.Add(-time.Second)); err != nil {
		t.Fatalf("verify: %v", err)
	}
	if err := s.Verify("b3RoZXI=", exp.Add(-time.Second)); !errors.Is(err, ErrBadSAS) || !strings.Contains(err.Error(), "signature") {
		t.Fatalf("wrong key: %v", err)
	}
	if err := s.Verify(testKey, exp); !errors.Is(err, ErrBadSAS) || !strings.Contains(err.Error(), "expired") {
		t.Fatalf("at expiry: %v", err)
	}
}

// TestSASVerifiesResourceAsWritten checks that the signature covers sr as
// it appears in the token (upper-case escapes, as .NET's signer writes
// them, verify too) and that editing sr breaks it.
func TestSASVerifiesResourceAsWritten(t *testing.T) {
	exp := time.Now().Add(time.Hour)
	sr := "sb%3A%2F%2Fns.servicebus.windows.net%2Fes"
	tok := "SharedAccessSignature sr=" + sr + "&sig=" + sigOf(testKey, sr, exp) + "&se=" + itoa(exp.Unix()) + "&skn=key_x"
	s, err := ParseSAS(tok)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Verify(testKey, time.Now()); err != nil {
		t.Fatalf("upper-case escapes: %v", err)
	}
	forged, _ := ParseSAS(strings.Replace(tok, "%2Fes", "%2Fother", 1))
	if err := forged.Verify(testKey, time.Now()); err == nil {
		t.Fatal("a token whose resource was edited verified")
	}
}

// TestParseSASRejects lists malformed tokens.
func TestParseSASRejects(t *testing.T) {
	for _, tok := range []string{
		"", "sr=a&sig=b&se=1&skn=k", "SharedAccessSignature ",
		"SharedAccessSignature sig=YQ%3d%3d&se=1&skn=k",
		"SharedAccessSignature sr=a&se=1&skn=k",
		"SharedAccessSignature sr=a&sig=!!&se=1&skn=k",
		"SharedAccessSignature sr=a&sig=YQ%3d%3d&se=soon&skn=k",
		"SharedAccessSignature sr=a&sig=YQ%3d%3d&se=1",
		"SharedAccessSignature sr=%zz&sig=YQ%3d%3d&se=1&skn=k",
	} {
		if _, err := ParseSAS(tok); !errors.Is(err, ErrBadSAS) {
			t.Errorf("ParseSAS(%q) = %v, want ErrBadSAS", tok, err)
		}
	}
}

// TestCovers checks resource prefixes against audiences.
func TestCovers(t *testing.T) {
	for _, c := range []struct {
		sr, aud string
		want    bool
	}{
		{"sb://ns/", "amqp://127.0.0.1/es", true},
		{"sb://ns/es", "amqp://127.0.0.1/ES/Partitions/0", true},
		{"sb://ns/es", "es", true},
		{"sb://ns/es", "amqp://127.0.0.1/es2", false},
		{"sb://ns/es/Partitions/0", "amqp://h/es", false},
	} {
		if got := Covers(c.sr, c.aud); got != c.want {
			t.Errorf("Covers(%q, %q) = %v", c.sr, c.aud, got)
		}
	}
}

// FuzzParseSAS checks that no token makes the parser panic, and that a
// parsed token has all its fields.
func FuzzParseSAS(f *testing.F) {
	f.Add(SignSAS("amqp://h/es", "k", "key", time.Unix(1e9, 0)))
	f.Add("SharedAccessSignature sr=&sig=&se=&skn=")
	f.Fuzz(func(t *testing.T, tok string) {
		s, err := ParseSAS(tok)
		if err != nil {
			if !errors.Is(err, ErrBadSAS) {
				t.Fatalf("error %v does not wrap ErrBadSAS", err)
			}
			return
		}
		if s.RawResource == "" || s.KeyName == "" || len(s.Signature) == 0 {
			t.Fatalf("parsed %+v with a field missing", s)
		}
		s.Verify("key", time.Unix(0, 0))
	})
}

// sigOf signs sr as written, URL-escaped base64.
func sigOf(key, sr string, exp time.Time) string {
	return strings.NewReplacer("+", "%2B", "/", "%2F", "=", "%3D").Replace(base64.StdEncoding.EncodeToString(sasMAC(key, sr, exp.Unix())))
}

// itoa formats n.
func itoa(n int64) string { return strconv.FormatInt(n, 10) }
