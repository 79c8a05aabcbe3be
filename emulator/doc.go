// Package emulator is a local Microsoft Fabric Eventstream emulator with a
// Kafka broker behind it, usable in-process (tests) or as the standalone
// fabric-emulator binary.
//
// It serves Fabric's public REST API for workspaces, role assignments,
// generic items and Eventstreams, plus the emulator-native routes a notebook
// and a producer need: resolve an Eventstream datasource to its Kafka
// bootstrap servers and topic, produce events over HTTP (the Custom source)
// and read them back with Kafka's columns. Every Eventstream owns a Kafka
// topic named {itemId}.{datasourceId}.
//
//	srv, err := emulator.New(emulator.WithDataDir(dir))
//	…
//	go srv.Serve(ln)
//	defer srv.Close()
//
// With WithTLS it serves what Fabric serves: HTTPS, and SASL_SSL on the
// custom endpoint's Kafka surface, under a CA it makes once (CACertificate,
// CertPool; <data-dir>/tls/ca.pem).
//
// The packages beneath are cut by concern: api (HTTP surface), auth (tokens),
// broker (Kafka through franz-go), store (SQLite metadata), tlsca (the CA
// and server certificate) and fabricerr (the error envelope).
package emulator
