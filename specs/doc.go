// Package specs holds the ginkgo witness suites: the system's end-to-end
// claims, run against real components.
//
// The Eventstream witness (eventstream_test.go, build tag container) runs the
// emulator in-process against Apache Kafka in a container, one container
// shared by the suite: an Eventstream is created, JSON goes in through the
// Custom HTTP source and comes out through the Kafka protocol (franz-go) and
// the HTTP consume route with Kafka's columns, a wrong item id answers 404
// ItemNotFound, and a Viewer cannot produce; the same events land in a bound
// Lakehouse as a Delta table, checked with the Go reader and with delta-rs
// (python deltalake in the project's venv: bash scripts/install-python-deps.sh;
// a missing venv fails the spec).
//
// The destination witnesses, on the same shared container:
//
//   - pipeline_test.go: Filter → GroupBy (tumbling, event time) → Lakehouse,
//     one row per closed window and key, read with both Delta readers;
//   - eventhouse_test.go: Eventstream → Eventhouse on the in-process Kusto
//     engine (kustofake), table and field called kind, values with commas,
//     quotes and line breaks, read back through azure-kusto-go;
//   - reflex_test.go: Eventstream → Reflex trigger → one job instance per
//     event through the Job Scheduler API, each with its own event, a
//     handler's error recorded as Failed with its reason.
//
// Run them with:
//
//	make kafka-image   # once: fabrictest/kafka:3.9.1-local, built on this machine
//	FABRICTEST_KAFKA_IMAGE=fabrictest/kafka:3.9.1-local TESTCONTAINERS_RYUK_DISABLED=true \
//	  go test -tags container -count=1 ./specs/...
//
// Without the tag the package has no tests, so `go test ./...` needs no
// Docker. With it the suite fails (never skips) when Docker is missing or
// FABRICTEST_KAFKA=embedded: a witness on the in-process broker would prove
// nothing about Kafka.
package specs
