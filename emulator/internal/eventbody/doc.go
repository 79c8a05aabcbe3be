// Package eventbody is the codec of the Custom HTTP endpoint's bodies: it
// reads a produce body ({"events": [{"key"?, "value", "headers"?,
// "timestamp"?}]}, or keyBase64/valueBase64) into Kafka records, with a
// fast scanner for the common shape and the strict decoder to name the
// event at fault, and writes the produce and consume answers without
// reflection. Its buffers (Scratch) are pooled across calls.
//
// It decides nothing about where events go: the HTTP api reads the
// request, the control plane's ingest seam authorises and writes.
package eventbody
