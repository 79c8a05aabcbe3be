// Package emulator is a local Microsoft Fabric Eventstream emulator with a
// Kafka broker behind it, usable in-process (tests) or as the standalone
// fabric-emulator binary.
//
// It serves Fabric's public REST API for workspaces, role assignments,
// generic items and Eventstreams, plus the emulator-native routes a notebook
// and a producer need: resolve an Eventstream datasource to its Kafka
// bootstrap servers and topic, produce events over HTTP (the Custom source)
// and read them back with Kafka's columns. Every Eventstream owns a Kafka
// topic named {itemId}.{datasourceId}. Beside the API it serves an
// Entra-compatible token service, OneLake's storage surface over Lakehouse
// files, a browser portal (unless WithoutPortal) and the custom endpoint's
// Kafka surface, where a client's SASL password is a connection string
// (WithKafkaEndpoint sets its address or turns it off).
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
// This package is the entry point: New opens the store and the broker,
// makes the runtime and wires the doors to them. The work is done in the
// packages beneath, in layers whose imports point down: the doors
// (internal/api for HTTP, internal/gateway for the Kafka surface,
// internal/portal, internal/onelake, internal/entra), the model
// (internal/definition, internal/eventstream), what runs (internal/runtime
// with internal/drain, internal/jobs, internal/insights) and the
// infrastructure (internal/store, internal/broker, internal/auth,
// internal/tlsca, internal/fabricerr). The public packages rows, pipeline,
// delta and eventhouse import none of them. docs/architecture.md lists the
// layers and the dependency rules that a test (internal/archtest at the
// module root) enforces.
package emulator
