package auth

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/MicahParks/keyfunc/v3"
	"github.com/golang-jwt/jwt/v5"
	"golang.org/x/time/rate"
)

// errNotThisIssuer means a token's iss is not the trusted issuer's.
var errNotThisIssuer = errors.New("not this issuer")

// Discovery paces: a failed discovery is retried after retryAfter; an
// unknown key id refreshes the JWKS at most once per refreshEvery.
const (
	retryAfter   = 5 * time.Second
	refreshEvery = 10 * time.Second
	fetchTimeout = 10 * time.Second
)

// TrustedIssuer is another OpenID issuer whose tokens the emulator accepts:
// its discovery document ({url}/.well-known/openid-configuration) names its
// issuer and jwks_uri; the keys are fetched at first use (keyfunc, over
// golang-jwt), refreshed hourly and when a token names an unknown key id.
type TrustedIssuer struct {
	url    string
	client *http.Client
	logger *slog.Logger

	mu      sync.Mutex
	issuer  string          // the discovery document's issuer
	keys    keyfunc.Keyfunc // nil until discovered
	failed  time.Time       // when discovery last failed
	failErr error
	ctx     context.Context // ends the key refresh
	cancel  context.CancelFunc
}

// NewTrustedIssuer trusts the OpenID issuer at rawURL (an issuer URL or its
// discovery document's URL). client fetches its documents (nil: a client
// with the system's roots); logger reports fetch failures.
func NewTrustedIssuer(rawURL string, client *http.Client, logger *slog.Logger) (*TrustedIssuer, error) {
	u, err := url.Parse(rawURL)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return nil, fmt.Errorf("trusted issuer %q: want an http(s) URL of an OpenID issuer", rawURL)
	}
	if client == nil {
		client = &http.Client{Timeout: fetchTimeout}
	}
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	ctx, cancel := context.WithCancel(context.Background())
	return &TrustedIssuer{url: strings.TrimSuffix(rawURL, "/"), client: client, logger: logger, ctx: ctx, cancel: cancel}, nil
}

// URL is the issuer URL as configured.
func (t *TrustedIssuer) URL() string { return t.url }

// Close stops the key refresh.
func (t *TrustedIssuer) Close() { t.cancel() }

// keyFor returns the key lookup (by the token's kid) for a token of iss
// and tid, errNotThisIssuer when iss is another issuer's, or why the
// issuer's documents could not be read.
func (t *TrustedIssuer) keyFor(ctx context.Context, iss, tid string) (jwt.Keyfunc, error) {
	issuer, keys, err := t.discover(ctx)
	if err != nil {
		return nil, err
	}
	if !issuerMatches(issuer, iss, tid) {
		return nil, errNotThisIssuer
	}
	lookup := keys.KeyfuncCtx(ctx)
	return func(tok *jwt.Token) (any, error) {
		k, err := lookup(tok)
		if err != nil {
			return nil, fmt.Errorf("no key of %s matches the token's key id: %w", t.url, err)
		}
		return k, nil
	}, nil
}

// discover reads the discovery document once (again after a failure, at
// most every retryAfter) and starts the key set.
func (t *TrustedIssuer) discover(ctx context.Context) (string, keyfunc.Keyfunc, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.keys != nil {
		return t.issuer, t.keys, nil
	}
	if !t.failed.IsZero() && time.Since(t.failed) < retryAfter {
		return "", nil, t.failErr
	}
	issuer, jwksURI, err := t.fetchDiscovery(ctx)
	if err == nil {
		t.keys, err = t.keySet(jwksURI)
	}
	if err != nil {
		t.failed, t.failErr = time.Now(), fmt.Errorf("trusted issuer %s: %w", t.url, err)
		t.logger.Warn("trusted issuer unreachable", "issuer", t.url, "err", err)
		return "", nil, t.failErr
	}
	t.issuer = issuer
	return issuer, t.keys, nil
}

// fetchDiscovery reads the issuer's OpenID discovery document.
func (t *TrustedIssuer) fetchDiscovery(ctx context.Context) (issuer, jwksURI string, err error) {
	u := t.url
	if !strings.HasSuffix(u, "/.well-known/openid-configuration") {
		u += "/.well-known/openid-configuration"
	}
	ctx, cancel := context.WithTimeout(ctx, fetchTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return "", "", fmt.Errorf("read discovery document: %w", err)
	}
	resp, err := t.client.Do(req)
	if err != nil {
		return "", "", fmt.Errorf("read discovery document: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return "", "", fmt.Errorf("read discovery document %s: status %s", u, resp.Status)
	}
	var doc struct {
		Issuer  string `json:"issuer"`
		JWKSURI string `json:"jwks_uri"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&doc); err != nil {
		return "", "", fmt.Errorf("decode discovery document %s: %w", u, err)
	}
	if doc.Issuer == "" || doc.JWKSURI == "" {
		return "", "", fmt.Errorf("discovery document %s names no issuer or no jwks_uri", u)
	}
	return doc.Issuer, doc.JWKSURI, nil
}

// keySet fetches the JWKS at jwksURI and keeps it fresh.
func (t *TrustedIssuer) keySet(jwksURI string) (keyfunc.Keyfunc, error) {
	noFirstErr := false
	keys, err := keyfunc.NewDefaultOverrideCtx(t.ctx, []string{jwksURI}, keyfunc.Override{
		Client:                    t.client,
		HTTPTimeout:               fetchTimeout,
		NoErrorReturnFirstHTTPReq: &noFirstErr,
		RateLimitWaitMax:          time.Second, // an unknown kid within refreshEvery of the last refresh fails at once
		RefreshUnknownKID:         rate.NewLimiter(rate.Every(refreshEvery), 1),
		RefreshErrorHandlerFunc: func(u string) func(context.Context, error) {
			return func(_ context.Context, err error) {
				t.logger.Warn("trusted issuer keys not refreshed", "issuer", t.url, "jwks", u, "err", err)
			}
		},
	})
	if err != nil {
		return nil, fmt.Errorf("read keys %s: %w", jwksURI, err)
	}
	return keys, nil
}

// issuerMatches reports whether a token's iss belongs to the issuer a
// discovery document names: equal to it once {tenantid} is filled with the
// token's tid, or, for an Entra v2.0 issuer ({host}/{tenant}/v2.0), that
// tenant's v1.0 issuer: Entra signs both formats with the same keys, and the
// tokens of Fabric's resources are v1.0 ones.
func issuerMatches(docIssuer, iss, tid string) bool {
	if iss == "" {
		return false
	}
	want := strings.ReplaceAll(docIssuer, "{tenantid}", tid)
	if iss == want {
		return true
	}
	u, err := url.Parse(docIssuer)
	if err != nil || !strings.HasSuffix(u.Path, "/v2.0") {
		return false
	}
	tenant, _, _ := strings.Cut(strings.TrimPrefix(u.Path, "/"), "/")
	if tenant == "{tenantid}" {
		tenant = tid
	}
	return tenant != "" && iss == V1Issuer(tenant)
}
