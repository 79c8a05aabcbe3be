package main

import (
	"errors"
	"fmt"
	"net"
	"strconv"
	"syscall"
)

// listenFlag names a flag whose value is an address serve listens on.
type listenFlag struct {
	name, addr, fix string
}

// explainListen turns "address already in use" into an error naming the
// flag that moves the listener and what probably holds the address: a
// second emulator started while `make run` or a test's emulator runs is
// the common case. Other errors pass through unchanged.
func explainListen(err error, flags ...listenFlag) error {
	var op *net.OpError
	if !errors.Is(err, syscall.EADDRINUSE) || !errors.As(err, &op) || op.Addr == nil {
		return err
	}
	for _, f := range flags {
		if sameAddr(op.Addr.String(), f.addr) {
			return fmt.Errorf("%w\n  %s is taken, probably by another fabric-emulator (make run, or a test that started one) or another Kafka/HTTP server; %s",
				err, op.Addr, f.fix)
		}
	}
	return err
}

// sameAddr reports whether a bound address is the one a flag asked for
// ("localhost:9093" asks for what binds as 127.0.0.1:9093).
func sameAddr(bound, asked string) bool {
	bh, bp, err1 := net.SplitHostPort(bound)
	ah, ap, err2 := net.SplitHostPort(asked)
	if err1 != nil || err2 != nil || bp != ap {
		return false
	}
	if p, _ := strconv.Atoi(ap); p == 0 {
		return false
	}
	return bh == ah || ah == "" || ah == "localhost" || net.ParseIP(ah).IsUnspecified()
}

// serveListenFlags are the listeners serve opens, with the flag that moves each.
func serveListenFlags(addr, endpoint string, kafkaPort int) []listenFlag {
	flags := []listenFlag{
		{"--addr", addr, "start this one with --addr 127.0.0.1:0 (a free port) or another port, or stop the other one"},
		{"--kafka-endpoint", endpoint, "start this one with --kafka-endpoint 127.0.0.1:0 (a free port) or --kafka-endpoint off, or stop the other one"},
	}
	if kafkaPort != 0 {
		flags = append(flags, listenFlag{"--embedded-kafka-port", net.JoinHostPort("127.0.0.1", strconv.Itoa(kafkaPort)),
			"start this one with --embedded-kafka-port 0 (a free port), or stop the other one"})
	}
	return flags
}
