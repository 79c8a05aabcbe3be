// Package examples holds runnable examples a newcomer copies.
//
// downstream_test.go is a downstream-style go test: a service of yours (here
// a small order publisher and an order-total consumer, defined in the test
// file) tested against the emulator through fabrictest's public API only.
//
//	FABRICTEST_KAFKA=embedded go test ./examples/...    # in-process broker, about a second
//	go test -tags container ./examples/...              # Apache Kafka in a shared container
//
// Untagged, the package defaults to the embedded broker (main_test.go) so
// that `go test ./...` needs no Docker; a project of your own would rather
// leave FABRICTEST_KAFKA to CI and call fabrictest.SharedKafka from TestMain
// (main_container_test.go).
//
// eventstream_notebook.ipynb is the Fabric notebook's Eventstream cell in
// Jupyter, opened beside `make run`: it resolves an Eventstream, produces,
// streams and shows the rows on Sail (python/README.md; executed headless
// by python/tests/test_notebook.py).
package examples
