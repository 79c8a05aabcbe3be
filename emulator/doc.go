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
// The packages beneath are cut by concern: api (HTTP surface), auth (tokens),
// broker (Kafka through franz-go), store (SQLite metadata) and fabricerr (the
// error envelope).
package emulator
