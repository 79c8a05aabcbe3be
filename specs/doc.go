// Package specs holds the ginkgo witness suites: the Fabric notebook snippet
// run end to end on JVM Spark and on Sail against the emulator, with Delta
// tables read back by delta-rs.
package specs
