// Package fabrictest tests Go code against a local Microsoft Fabric
// Eventstream emulator with a Kafka broker behind it. A test:
//
//	func TestOrders(t *testing.T) {
//		env := fabrictest.Start(t) // FABRICTEST_KAFKA=embedded for no Docker
//		es := env.Workspace("sales").Eventstream("orders")
//		es.ProduceJSON(map[string]any{"id": 1, "amount": 12.5})
//		gomega.NewWithT(t).Expect(es.Consume()).To(fabrictest.HaveRecordCount(1))
//	}
//
// Start boots the emulator and its broker and tears both down with
// t.Cleanup; the environment it returns has helpers that read like the
// domain, and gomega matchers that say what they found. The Examples show
// each entry point running.
//
// # Environment
//
// Start(t, opts...) runs the emulator in-process on a free loopback port (a
// real HTTP server: Env.URL) and attaches a Kafka broker:
//
//   - container (the default): Apache Kafka in a container through
//     testcontainers-go (fixtures/kafka), image apache/kafka:3.9.1 pinned by
//     digest unless FABRICTEST_KAFKA_IMAGE says otherwise. Without Docker,
//     Start fails the test with a message naming FABRICTEST_KAFKA=embedded;
//     it never skips.
//   - embedded: franz-go's kfake in the test process. It speaks the Kafka
//     wire protocol and starts in milliseconds; it is not Apache Kafka.
//   - host:port[,host:port]: a cluster that is already running.
//
// In a ginkgo suite, pass GinkgoTB(): teardown then runs as DeferCleanup,
// and bind each spec's context with Env.WithContext (or WithContext(h, ctx)
// on a handle h) so a SpecTimeout interrupts calls in flight.
//
// Call SharedKafka from TestMain to start one container per test binary
// instead of one per test: each environment keeps its own emulator, and each
// Eventstream its own topic, so tests stay isolated and may run in parallel.
// New(ctx, opts...) returns an environment outside a test (close it with
// Close); its helpers panic where Start's would fail the test.
//
// # Environment variables
//
//	FABRICTEST_KAFKA        container (default) | embedded | host:port[,host:port]
//	FABRICTEST_KAFKA_IMAGE  the Kafka image (default apache/kafka:3.9.1@sha256:…;
//	                        fabrictest/kafka:3.9.1-local on machines that cannot pull)
//
// An option wins over its variable, which wins over the default. The
// testcontainers variables apply as usual (TESTCONTAINERS_RYUK_DISABLED,
// TESTCONTAINERS_HOST_OVERRIDE, DOCKER_HOST).
//
// # Helpers
//
// Env.Workspace creates a workspace, Workspace.Eventstream an Eventstream
// (its ID, DatasourceID and Kafka Topic are fields). Eventstream.Produce,
// ProduceJSON and ProduceRaw send events through the Custom HTTP source;
// Consume reads them back through the emulator's HTTP consume route and
// Records through the Kafka protocol with franz-go, as a notebook would,
// both as Records with Kafka's columns. Env.As acts as another principal;
// Workspace.Grant gives it a role.
//
// # Handles and names
//
// Workspace, Eventstream, Lakehouse, Table, Eventhouse, Reflex and Item are
// handles: values holding the item's ids and the environment view their
// calls go through (Env()). As(h, principal), WithT(h, t) and
// WithContext(h, ctx) return the same handle acting as another principal,
// reporting to another test or bounded by another context:
//
//	viewer := fabrictest.As(es, "viewer")
//	es = fabrictest.WithContext(es, ctx) // a ginkgo SpecContext
//
// One rule names the ways to get a handle:
//
//   - X(name) creates the item (Env.Workspace, Workspace.Eventstream,
//     Lakehouse, Eventhouse, Reflex, Item) and fails the test if it cannot;
//     TryX(name) returns the error instead.
//   - XByID(id) looks an existing item up through the API
//     (Workspace.EventstreamByID) and fails the test if it cannot;
//     TryXByID(id) returns the error instead.
//   - XRef(id…) is a reference that calls no API and so cannot fail
//     (Env.WorkspaceRef, Workspace.EventstreamRef, Workspace.ItemRef):
//     nothing is checked until it is used. Lakehouse.Table(name) is one
//     too: a Delta table is made by a destination, never by the harness.
//
// Every helper reports a failure to the test with the Fabric errorCode,
// message and request id of the answer. Each has a Try… form that returns
// the error instead (an *APIError for a non-2xx answer), for tests that
// assert failures, and whose method value or …Func form drops into gomega's
// Eventually:
//
//	Eventually(es.TryRecords).WithTimeout(5 * time.Second).Should(fabrictest.HaveRecordCount(3))
//	_, err := fabrictest.As(es, "viewer").TryProduce("x")
//	Expect(err).To(fabrictest.HaveErrorCode("InsufficientPrivileges"))
//
// Env.Call and TryCall reach routes the helpers do not cover; Env.Client is
// an *http.Client that adds the bearer token, for the code under test.
//
// Destinations: Workspace.Lakehouse and Eventstream.BindLakehouse, then
// Lakehouse.Table(name) reads the Delta table (Rows, Schema, Versions,
// Snapshot) through emulator/delta; Workspace.Eventhouse and
// BindEventhouse with WithKustoFake() (an in-process Kusto engine) or
// WithKQL(url), read back with Eventhouse.Rows or Env.KustoRows through
// azure-kusto-go; Workspace.Reflex, Reflex.Trigger and BindReflex, with
// Env.HandleJobs running the jobs and Item.JobInstances reading them;
// Eventstream.SetOperators for Filter, ManageFields and GroupBy.
// Destination.Metrics, Eventstream.Metrics and Eventstream.StreamMetrics
// read each node's data insights under Fabric's metric names;
// Destination.RuntimeLogs and Eventstream.RuntimeLogs its runtime logs,
// newest first (LogLevel, LogKeyword).
//
// Time: a Lakehouse destination deployed by a definition batches as
// Fabric's does (minimumRows, maximumDurationInSeconds), and windows close
// on the emulator's clock. Env.AdvanceClock(d) moves that clock forward
// and returns once the batches and windows it made due are written;
// Eventstream.FlushDestination commits a destination's buffer at once;
// Env.Now reads the clock. Tests advance the clock instead of sleeping.
//
// TLS: WithTLS serves HTTPS and a SASL_SSL custom endpoint, as Fabric does;
// the helpers, Env.Client and Connection.KafkaOpts trust the emulator's CA,
// and Env.CACertificate, Env.CertPool and Env.TLSConfig hand it to the code
// under test.
//
// # Matchers
//
// HaveRecordCount, HaveRecordsWithValues and HaveErrorCode; for Delta tables
// HaveDeltaRows, HaveCommits, HaveVersion, HaveColumns and HaveRowsMatching
// (which also takes Kusto rows); for jobs HaveJobInstances and
// HaveJobStatus; for data insights HaveMetric and HaveMetricAtLeast (which
// print every counter of the node). All are gcustom matchers on typed
// inputs; they work inside Eventually and print what they found when they
// fail.
//
// # Layout (for contributors)
//
// options.go (Option and defaults), env.go (Start, New, Env), kafka.go (the
// backends and SharedKafka), api.go (calls, Response, APIError), handle.go
// (the handle every item embeds; As, WithT, WithContext), workspace.go,
// eventstream.go, records.go, definition.go and operators.go. Items: items.go
// (the generic Item), jobs.go (job instances and handlers), reflex.go (the
// Reflex item and its binding), triggers.go (its rules). A destination
// (Lakehouse/Delta, Eventhouse, Reflex) adds its helpers in a file of its own
// (lakehouse.go: Workspace.Lakehouse, Eventstream.Bind…, table readers that
// return typed values) and its matchers in matchers_<destination>.go;
// insights.go reads data insights and runtime logs, matchers_insights.go
// matches them; matchers_rows.go matches rows and matchers_values.go
// compares their values
// by meaning. All are built on Env.do, the Try/Fatal pairing and
// newTemplate; Env.Server and WithDataDir give access to files the emulator
// writes.
package fabrictest
