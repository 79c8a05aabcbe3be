package eventhubs

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// sasPrefix starts every shared access signature token.
const sasPrefix = "SharedAccessSignature "

// ErrBadSAS is wrapped by every error about a malformed, forged or expired
// shared access signature.
var ErrBadSAS = errors.New("invalid shared access signature")

// SAS is a parsed shared access signature token:
// "SharedAccessSignature sr=<resource>&sig=<signature>&se=<expiry>&skn=<key name>".
type SAS struct {
	Resource    string // the resource URI, decoded
	RawResource string // sr as written in the token (what was signed)
	Signature   []byte // the HMAC-SHA256, decoded
	Expiry      time.Time
	KeyName     string
}

// ParseSAS parses a token; fields may come in any order.
func ParseSAS(token string) (SAS, error) {
	rest, ok := strings.CutPrefix(token, sasPrefix)
	if !ok {
		return SAS{}, fmt.Errorf("parse SAS: no %q prefix: %w", strings.TrimSpace(sasPrefix), ErrBadSAS)
	}
	var s SAS
	var se string
	for _, kv := range strings.Split(rest, "&") {
		k, v, _ := strings.Cut(kv, "=")
		switch k {
		case "sr":
			s.RawResource = v
		case "sig":
			s.Signature = decodeSig(v)
		case "se":
			se = v
		case "skn":
			s.KeyName, _ = url.QueryUnescape(v)
		}
	}
	return s, s.finish(se)
}

// finish decodes the resource and expiry and checks every field is there.
func (s *SAS) finish(se string) error {
	r, err := url.QueryUnescape(s.RawResource)
	switch {
	case s.RawResource == "" || err != nil:
		return fmt.Errorf("parse SAS: bad or missing sr: %w", ErrBadSAS)
	case s.Signature == nil:
		return fmt.Errorf("parse SAS: bad or missing sig: %w", ErrBadSAS)
	case s.KeyName == "":
		return fmt.Errorf("parse SAS: missing skn: %w", ErrBadSAS)
	}
	sec, err := strconv.ParseInt(se, 10, 64)
	if err != nil {
		return fmt.Errorf("parse SAS: bad or missing se: %w", ErrBadSAS)
	}
	s.Resource, s.Expiry = r, time.Unix(sec, 0).UTC()
	return nil
}

// decodeSig decodes a URL-escaped base64 signature; nil when it is not one.
func decodeSig(v string) []byte {
	u, err := url.QueryUnescape(v)
	if err != nil {
		return nil
	}
	b, err := base64.StdEncoding.DecodeString(u)
	if err != nil || len(b) == 0 {
		return nil
	}
	return b
}

// Verify checks the signature with key (the shared access key as written
// in the connection string) and that the token has not expired at now.
// The string signed is sr as written in the token, "\n", then se.
func (s SAS) Verify(key string, now time.Time) error {
	want := sasMAC(key, s.RawResource, s.Expiry.Unix())
	if !hmac.Equal(want, s.Signature) {
		return fmt.Errorf("verify SAS: signature does not match key %q: %w", s.KeyName, ErrBadSAS)
	}
	if !now.Before(s.Expiry) {
		return fmt.Errorf("verify SAS: token expired at %s: %w", s.Expiry.Format(time.RFC3339), ErrBadSAS)
	}
	return nil
}

// sasMAC is the HMAC-SHA256 of rawResource "\n" expiry under key.
func sasMAC(key, rawResource string, expiry int64) []byte {
	h := hmac.New(sha256.New, []byte(key))
	h.Write([]byte(rawResource + "\n" + strconv.FormatInt(expiry, 10)))
	return h.Sum(nil)
}

// SignSAS makes a token for resource as the Event Hubs SDKs do: the
// resource URL-escaped in lower case, signed with key.
func SignSAS(resource, keyName, key string, expiry time.Time) string {
	sr := strings.ToLower(url.QueryEscape(resource))
	sig := base64.StdEncoding.EncodeToString(sasMAC(key, sr, expiry.Unix()))
	return fmt.Sprintf("%ssr=%s&sig=%s&se=%d&skn=%s", sasPrefix, sr,
		url.QueryEscape(sig), expiry.Unix(), url.QueryEscape(keyName))
}

// EntityPath returns the path of a resource or audience URI without its
// scheme and host, lower case and without slashes at either end:
// "amqp://127.0.0.1/es/Partitions/0" gives "es/partitions/0". A bare
// path is taken as it is.
func EntityPath(uri string) string {
	p := uri
	if i := strings.Index(p, "://"); i >= 0 {
		p = p[i+3:]
		if j := strings.IndexByte(p, '/'); j >= 0 {
			p = p[j:]
		} else {
			p = ""
		}
	}
	return strings.ToLower(strings.Trim(p, "/"))
}

// Covers reports whether a token for resource sr may be used for
// audience: the resource's path is the audience's path or one of its
// parents. Hosts are not compared (the emulator answers on any name).
func Covers(sr, audience string) bool {
	r, a := EntityPath(sr), EntityPath(audience)
	return r == "" || r == a || strings.HasPrefix(a, r+"/")
}
