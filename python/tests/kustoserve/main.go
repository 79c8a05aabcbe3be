// Command kustoserve runs kustofake, the in-process Kusto engine, on a free
// loopback port: it prints "kustofake ready at <url>" and serves until its
// standard input closes or it gets SIGTERM/SIGINT. python/tests (the plugin's
// Eventhouse helpers) runs it with go run and hands the URL to the emulator
// as --kql-url.
package main

import (
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/fabrictest/fabrictest/kustofake"
)

func main() {
	srv := kustofake.New()
	defer srv.Close()
	fmt.Printf("kustofake ready at %s\n", srv.URL())
	done := make(chan struct{})
	go func() {
		_, _ = io.Copy(io.Discard, os.Stdin)
		close(done)
	}()
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGTERM, syscall.SIGINT)
	select {
	case <-done:
	case <-sig:
	}
}
