package main

import (
	"io"
	"net"
	"strings"
	"testing"
)

// takenAddr holds a loopback port for the test's lifetime.
func takenAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	return ln.Addr().String()
}

// A second emulator on a taken --addr is told which flag moves it.
func TestServeNamesAddrFlagWhenTaken(t *testing.T) {
	addr := takenAddr(t)
	err := serve([]string{"--addr", addr, "--kafka", "none", "--kafka-endpoint", "off"}, io.Discard, io.Discard)
	if err == nil {
		t.Fatal("serve on a taken --addr succeeded")
	}
	for _, want := range []string{"address already in use", addr + " is taken", "another fabric-emulator", "--addr 127.0.0.1:0"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q:\n%v", want, err)
		}
	}
}

// A second emulator on a taken --kafka-endpoint (9093 while `make run`
// runs) is told to pick a free port or turn the endpoint off.
func TestServeNamesEndpointFlagWhenTaken(t *testing.T) {
	addr := takenAddr(t)
	err := serve([]string{"--addr", "127.0.0.1:0", "--kafka", "embedded", "--kafka-endpoint", addr, "--amqp-endpoint", "127.0.0.1:0"}, io.Discard, io.Discard)
	if err == nil {
		t.Fatal("serve on a taken --kafka-endpoint succeeded")
	}
	for _, want := range []string{addr + " is taken", "--kafka-endpoint 127.0.0.1:0", "--kafka-endpoint off"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q:\n%v", want, err)
		}
	}
}

// A second emulator on a taken --amqp-endpoint (5672 while `make run`
// runs) is told to pick a free port or turn the endpoint off.
func TestServeNamesAMQPFlagWhenTaken(t *testing.T) {
	addr := takenAddr(t)
	err := serve([]string{"--addr", "127.0.0.1:0", "--kafka", "embedded", "--kafka-endpoint", "127.0.0.1:0", "--amqp-endpoint", addr}, io.Discard, io.Discard)
	if err == nil {
		t.Fatal("serve on a taken --amqp-endpoint succeeded")
	}
	for _, want := range []string{addr + " is taken", "--amqp-endpoint 127.0.0.1:0", "--amqp-endpoint off"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q:\n%v", want, err)
		}
	}
}

func TestSameAddr(t *testing.T) {
	for _, c := range []struct {
		bound, asked string
		want         bool
	}{
		{"127.0.0.1:9093", "127.0.0.1:9093", true},
		{"127.0.0.1:9093", "localhost:9093", true},
		{"0.0.0.0:5080", ":5080", true},
		{"127.0.0.1:9093", "127.0.0.1:9094", false},
		{"127.0.0.1:41000", "127.0.0.1:0", false},
		{"127.0.0.1:9093", "off", false},
	} {
		if got := sameAddr(c.bound, c.asked); got != c.want {
			t.Errorf("sameAddr(%q, %q) = %v, want %v", c.bound, c.asked, got, c.want)
		}
	}
}
