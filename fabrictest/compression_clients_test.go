package fabrictest_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/fabrictest/fabrictest/fabrictest"
	"github.com/fabrictest/fabrictest/internal/testclients"
)

// confluentCompressed produces the jobs given as JSON on stdin with
// confluent_kafka.Producer (librdkafka in its wheel), one producer per job
// with the job's compression.type, to the job's partition; through the
// custom endpoint with Fabric's settings (SASL_SSL, PLAIN,
// "$ConnectionString") and the CA, straight to the broker with PLAINTEXT.
// It prints how many events were acknowledged.
const confluentCompressed = `
import json, sys
from confluent_kafka import Producer
spec = json.load(sys.stdin)
errors, n = [], 0
for job in spec["jobs"]:
    conf = {"compression.type": job["codec"], "linger.ms": 50, "message.timeout.ms": 20000}
    if job["route"] == "endpoint":
        conf.update({"bootstrap.servers": spec["endpoint"], "security.protocol": "SASL_SSL", "sasl.mechanism": "PLAIN",
                     "sasl.username": "$ConnectionString", "sasl.password": spec["password"], "ssl.ca.location": spec["ca"]})
    else:
        conf.update({"bootstrap.servers": spec["broker"], "security.protocol": "PLAINTEXT"})
    p = Producer(conf, logger=None)
    for key, value in job["events"]:
        p.produce(spec["topic"], value.encode(), key.encode(), partition=job["partition"],
                  callback=lambda err, msg: errors.append(str(err)) if err else None)
        n += 1
    left = p.flush(30)
    if left:
        errors.append("%d undelivered with %s %s" % (left, job["codec"], job["route"]))
if errors:
    sys.stderr.write("delivery failed: %s\n" % errors[:3])
    sys.exit(1)
print(n)
`

// events are the job's (key, JSON value) pairs.
func (j compressionJob) events() [][2]string {
	out := make([][2]string, compressionEvents)
	for seq := range out {
		v, _ := json.Marshal(j.value(seq))
		out[seq] = [2]string{j.key(seq), string(v)}
	}
	return out
}

// TestCompressedThirdPartyProducers: Kafka clients nobody here wrote,
// librdkafka (confluent-kafka) and Apache kafka-clients, configured as
// Fabric's custom endpoint says (learn.microsoft.com/fabric/
// real-time-intelligence/event-streams/add-source-custom-app, Kafka tab)
// plus compression.type gzip, snappy, lz4 or zstd, through the custom
// endpoint over SASL_SSL (and librdkafka straight to the broker too),
// deliver every event to the Lakehouse table and the consume route, each
// partition's batches stored with its producer's codec.
//
// Azure Event Hubs documents gzip alone for its Kafka endpoint
// (learn.microsoft.com/azure/event-hubs/azure-event-hubs-kafka-overview,
// Compression); Fabric's custom endpoint pages say nothing of compression.
// The emulator's endpoint accepts all four codecs, as Apache Kafka does: a
// documented extension (README, Custom endpoint).
func TestCompressedThirdPartyProducers(t *testing.T) {
	t.Parallel()
	py := testclients.ConfluentKafka(t)
	java, cp, javaSrc := testclients.JavaKafka(t)
	// kafka-clients only through the endpoint: a JVM takes seconds to warm
	// up, and the direct route is Apache Kafka's own client on its broker.
	jobs := addJobs(addJobs(nil, "librdkafka"), "kafka-clients", "endpoint")
	env := fabrictest.Start(t, fabrictest.WithTLS(), fabrictest.WithPartitions(len(jobs)))
	cs := deployCompressionStream(env, "compression-clients")
	conn, src := cs.src, cs.es.Resolve()
	caFile := filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(caFile, env.CACertificate(), 0o600); err != nil {
		t.Fatal(err)
	}

	type pyJob struct {
		Codec     string      `json:"codec"`
		Route     string      `json:"route"`
		Partition int32       `json:"partition"`
		Events    [][2]string `json:"events"`
	}
	spec := map[string]any{"endpoint": conn.Bootstrap(), "password": conn.AccessKeys.PrimaryConnectionString,
		"ca": caFile, "broker": src.BootstrapServers, "topic": conn.EventHubName}
	var pyJobs []pyJob
	for _, j := range jobs {
		if j.client == "librdkafka" {
			pyJobs = append(pyJobs, pyJob{j.codec.name, j.route, j.part, j.events()})
		}
	}
	spec["jobs"] = pyJobs
	in, _ := json.Marshal(spec)
	out := testclients.Run(t, in, py, "-c", confluentCompressed)
	if got := strings.TrimSpace(string(out)); got != strconv.Itoa(len(pyJobs)*compressionEvents) {
		t.Fatalf("confluent-kafka acknowledged %s events, want %d", got, len(pyJobs)*compressionEvents)
	}

	// One JVM for every kafka-clients job: CompressedProducers beside
	// SaslSslProducer, one KafkaProducer per job; C1 alone and the serial
	// collector start a short program fastest.
	args := []string{"-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn", "-cp", cp,
		filepath.Join(filepath.Dir(javaSrc), "CompressedProducers.java"), conn.EventHubName}
	javaEvents := 0
	for _, j := range jobs {
		if j.client != "kafka-clients" {
			continue
		}
		var lines strings.Builder
		for _, e := range j.events() {
			lines.WriteString(e[0] + "\t" + e[1] + "\n")
		}
		linesFile := filepath.Join(t.TempDir(), "lines.txt")
		if err := os.WriteFile(linesFile, []byte(lines.String()), 0o600); err != nil {
			t.Fatal(err)
		}
		args = append(args, javaCompressionProperties(t, j, conn, src.BootstrapServers, caFile), strconv.Itoa(int(j.part)), linesFile)
		javaEvents += compressionEvents
	}
	// A javac compile, a JVM and four producers: 15 to 47 s measured on a
	// 2-core machine busy with other builds, over Run's 40 s at worst.
	out = testclients.RunWithin(t, 2*time.Minute, nil, java, args...)
	if got := strings.TrimSpace(string(out)); got != strconv.Itoa(javaEvents) {
		t.Fatalf("kafka-clients acknowledged %s events, want %d", got, javaEvents)
	}

	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	checkCompressed(ctx, t, cs, jobs)
}

// javaCompressionProperties writes kafka-clients' settings for job j: the
// custom endpoint's from Fabric's Kafka tab (with the CA as a PEM
// truststore), or PLAINTEXT to the broker, and the job's compression.type.
func javaCompressionProperties(t *testing.T, j compressionJob, conn fabrictest.Connection, broker, caFile string) string {
	t.Helper()
	props := []string{"bootstrap.servers=" + broker, "security.protocol=PLAINTEXT"}
	if j.route == "endpoint" {
		props = []string{
			"bootstrap.servers=" + conn.Bootstrap(),
			"security.protocol=SASL_SSL",
			"sasl.mechanism=PLAIN",
			`sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required username="$ConnectionString" password="` + conn.AccessKeys.PrimaryConnectionString + `";`,
			"ssl.truststore.type=PEM",
			"ssl.truststore.location=" + caFile,
		}
	}
	props = append(props, "compression.type="+j.codec.name, "linger.ms=50",
		"delivery.timeout.ms=20000", "request.timeout.ms=10000")
	path := filepath.Join(t.TempDir(), fmt.Sprintf("%s-%s.properties", j.codec.name, j.route))
	if err := os.WriteFile(path, []byte(strings.Join(props, "\n")), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}
