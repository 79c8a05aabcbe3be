package main

import (
	"flag"
	"fmt"
	"io"
)

// ca prints the PEM of the CA behind the emulator's TLS (--tls): from
// <data-dir>/tls/ca.pem when there is one, else from the running
// emulator's loopback route GET /_emulator/ca.pem (verified: every
// request after the first trusts only that CA).
func ca(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("ca", flag.ContinueOnError)
	addr := fs.String("addr", env("FABRIC_EMULATOR_ADDR", "127.0.0.1:5080"), "address of the running emulator, asked when the data dir holds no CA (FABRIC_EMULATOR_ADDR)")
	dataDir := fs.String("data-dir", env("FABRIC_EMULATOR_DATA", ""), "the emulator's data dir; its tls/ca.pem is printed when present (FABRIC_EMULATOR_DATA)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	pem, err := readCAFile(*dataDir)
	if err != nil {
		return err
	}
	if pem == nil {
		base, client, err := emulatorClient(*addr, *dataDir)
		if err != nil {
			return err
		}
		if pem, err = fetchCA(client, base); err != nil {
			return err
		}
	}
	_, err = fmt.Fprint(stdout, string(pem))
	return err
}
