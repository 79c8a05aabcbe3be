package main

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/fabrictest/fabrictest/emulator"
)

// probeTimeout bounds the look at the running emulator's port.
const probeTimeout = 5 * time.Second

// emulatorClient returns the base URL of the running emulator at addr and
// a client for it. An addr without a scheme is probed: a TLS handshake
// that the server answers makes it https://, one it answers in plain text
// http://. Over HTTPS the client trusts the CA in dataDir's tls/ca.pem or,
// when there is none, the one the emulator's loopback route answers (read
// once without verification, then every request verifies against it).
func emulatorClient(addr, dataDir string) (string, *http.Client, error) {
	base := addr
	if !strings.Contains(base, "://") {
		addr = dialable(addr)
		scheme, err := probeScheme(addr)
		if err != nil {
			return "", nil, fmt.Errorf("reach the emulator at %s (is it running?): %w", addr, err)
		}
		base = scheme + "://" + addr
	}
	if !strings.HasPrefix(base, "https://") {
		return base, http.DefaultClient, nil
	}
	pem, err := readCAFile(dataDir)
	if err != nil {
		return "", nil, err
	}
	if pem == nil {
		insecure := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}}
		if pem, err = fetchCA(insecure, base); err != nil {
			return "", nil, err
		}
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(pem) {
		return "", nil, errors.New("the emulator's CA is not a PEM certificate")
	}
	return base, &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}, nil
}

// dialable turns a listen address on every interface (0.0.0.0:5080, as
// in the container image, or :5080) into its loopback form: the one the
// certificate names, and the one the loopback-only routes answer.
func dialable(addr string) string {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return addr
	}
	if ip := net.ParseIP(host); host == "" || (ip != nil && ip.IsUnspecified()) {
		return net.JoinHostPort("127.0.0.1", port)
	}
	return addr
}

// probeScheme tells an HTTPS emulator from a plain one by a TLS handshake.
func probeScheme(addr string) (string, error) {
	d := &net.Dialer{Timeout: probeTimeout}
	c, err := tls.DialWithDialer(d, "tcp", addr, &tls.Config{InsecureSkipVerify: true})
	var rh tls.RecordHeaderError
	switch {
	case err == nil:
		c.Close()
		return "https", nil
	case errors.As(err, &rh):
		return "http", nil
	default:
		return "", err
	}
}

// readCAFile reads <dataDir>/tls/ca.pem; nil without a data dir or file.
func readCAFile(dataDir string) ([]byte, error) {
	if dataDir == "" {
		return nil, nil
	}
	b, err := os.ReadFile(filepath.Join(dataDir, emulator.TLSDir, "ca.pem"))
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read the emulator's CA: %w", err)
	}
	return b, nil
}

// fetchCA asks the emulator's loopback route for its CA.
func fetchCA(client *http.Client, base string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(context.Background(), probeTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, "GET", base+"/_emulator/ca.pem", nil)
	if err != nil {
		return nil, err
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("ask the emulator at %s for its CA: %w", base, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, fmt.Errorf("read the emulator's CA: %w", err)
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("ask the emulator at %s for its CA: %s: %s", base, resp.Status, errorMessage(b))
	}
	return b, nil
}

// errorMessage is the message of an error envelope, or the body itself.
func errorMessage(b []byte) string {
	var env struct{ Message string }
	if json.Unmarshal(b, &env) == nil && env.Message != "" {
		return env.Message
	}
	return strings.TrimSpace(string(b))
}
