// Package specs holds the ginkgo witness suites: the system's end-to-end
// claims, run against real components.
//
// The Eventstream witness (eventstream_test.go, build tag container) runs the
// emulator in-process against Apache Kafka in a container, one container
// shared by the suite: an Eventstream is created, JSON goes in through the
// Custom HTTP source and comes out through the Kafka protocol (franz-go) and
// the HTTP consume route with Kafka's columns, a wrong item id answers 404
// ItemNotFound, and a Viewer cannot produce. The Lakehouse/Delta witness
// joins it once Lakehouse destinations exist (see the marked place in
// eventstream_test.go).
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
