package main

import "testing"

// TestDialable: a wildcard listen address (the container image's
// FABRIC_EMULATOR_ADDR=0.0.0.0:5080) is dialled on loopback, which the
// emulator's certificate names; other addresses are kept.
func TestDialable(t *testing.T) {
	for in, want := range map[string]string{
		"0.0.0.0:5080":   "127.0.0.1:5080",
		"[::]:5080":      "127.0.0.1:5080",
		":5080":          "127.0.0.1:5080",
		"127.0.0.1:5080": "127.0.0.1:5080",
		"emulator:5080":  "emulator:5080",
		"no-port":        "no-port",
	} {
		if got := dialable(in); got != want {
			t.Errorf("dialable(%q) = %q, want %q", in, got, want)
		}
	}
}
