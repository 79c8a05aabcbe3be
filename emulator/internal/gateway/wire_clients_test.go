package gateway

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/fabrictest/fabrictest/internal/testclients"
)

// TestKcat produces and consumes with kcat (librdkafka) through the gateway,
// standalone and in a consumer group, and lists metadata.
func TestKcat(t *testing.T) {
	kcat := testclients.Kcat(t)
	e := newEnv(t)
	pass := e.grant("key_kcat", testTopic, "es-kcat:")
	sasl := []string{"-b", e.gw.Addr(),
		"-X", "security.protocol=SASL_PLAINTEXT", "-X", "sasl.mechanisms=PLAIN",
		"-X", "sasl.username=" + connUser, "-X", "sasl.password=" + pass}

	const n = 200
	var in bytes.Buffer
	var want []string
	for i := range n {
		line := fmt.Sprintf("k%03d:v%03d-%s", i, i, strings.Repeat("x", i))
		in.WriteString(line + "\n")
		want = append(want, strings.Replace(line, ":", "=", 1))
	}
	testclients.Run(t, in.Bytes(), kcat, append(sasl, "-P", "-t", testTopic, "-K", ":")...)

	read := func(args ...string) []string {
		out := testclients.Run(t, nil, kcat, append(sasl, args...)...)
		lines := strings.Split(strings.TrimRight(string(out), "\n"), "\n")
		slices.Sort(lines)
		return lines
	}
	if got := read("-C", "-t", testTopic, "-o", "beginning", "-e", "-q", "-f", "%k=%s\n"); !slices.Equal(got, want) {
		t.Fatalf("kcat -C read %d lines, want the %d produced (first %q)", len(got), len(want), first(got))
	}
	if got := read("-G", "$Default", testTopic, "-X", "auto.offset.reset=earliest", "-e", "-q", "-f", "%k=%s\n"); !slices.Equal(got, want) {
		t.Fatalf("kcat -G read %d lines, want the %d produced (first %q)", len(got), len(want), first(got))
	}
	meta := string(testclients.Run(t, nil, kcat, append(sasl, "-L")...))
	if !strings.Contains(meta, `topic "`+testTopic+`"`) || strings.Contains(meta, otherTopic) || !strings.Contains(meta, e.gw.Addr()) {
		t.Fatalf("kcat -L:\n%s\nwant only %s, on broker %s", meta, testTopic, e.gw.Addr())
	}
	groups, err := e.direct().ListGroups(testCtx(t))
	if err != nil {
		t.Fatalf("list upstream groups: %v", err)
	}
	if names := groups.Groups(); !slices.Contains(names, "es-kcat:$Default") {
		t.Fatalf("upstream groups %v, want es-kcat:$Default", names)
	}
	t.Logf("kcat produced %d records, read them back with -C and -G, and -L listed only %s", n, testTopic)
}

// pythonScript produces argv[4] records with kafka-python, then consumes
// them in a group and prints them as JSON.
const pythonScript = `
import json, sys, time
from kafka import KafkaConsumer, KafkaProducer
addr, password, topic, n = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
common = dict(bootstrap_servers=addr, security_protocol="SASL_PLAINTEXT", sasl_mechanism="PLAIN",
              sasl_plain_username="$ConnectionString", sasl_plain_password=password)
p = KafkaProducer(acks="all", **common)
for i in range(n):
    p.send(topic, key=b"py%03d" % i, value=b"value-%03d-" % i + bytes(range(i % 256)))
p.flush()
p.close()
c = KafkaConsumer(topic, group_id="$Default", auto_offset_reset="earliest", enable_auto_commit=False, **common)
got, deadline = [], time.time() + 30
while len(got) < n and time.time() < deadline:
    for recs in c.poll(timeout_ms=500).values():
        got.extend({"key": r.key.decode(), "value": r.value.hex()} for r in recs)
c.commit()
c.close()
print(json.dumps(got))
`

// TestKafkaPython produces and consumes in a group with kafka-python, whose
// SASL uses SaslHandshake v0 and a bare token.
func TestKafkaPython(t *testing.T) {
	py := testclients.KafkaPython(t)
	e := newEnv(t)
	pass := e.grant("key_py", testTopic, "es-py:")
	const n = 100
	out := testclients.Run(t, nil, py, "-c", pythonScript, e.gw.Addr(), pass, testTopic, fmt.Sprint(n))
	var got []struct{ Key, Value string }
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("kafka-python output %q: %v", out, err)
	}
	seen := map[string]bool{}
	for _, r := range got {
		var i int
		if _, err := fmt.Sscanf(r.Key, "py%03d", &i); err != nil || seen[r.Key] {
			t.Fatalf("unexpected or duplicate key %q", r.Key)
		}
		seen[r.Key] = true
		want := append([]byte(fmt.Sprintf("value-%03d-", i)), make([]byte, i%256)...)
		for j := range i % 256 {
			want[len(want)-i%256+j] = byte(j)
		}
		if r.Value != fmt.Sprintf("%x", want) {
			t.Fatalf("record %s: value differs from the one produced", r.Key)
		}
	}
	if len(got) != n {
		t.Fatalf("kafka-python consumed %d records, want %d", len(got), n)
	}
	// The records are upstream, and so is the group's commit.
	cl := e.client(pass, kgo.ConsumeTopics(testTopic), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	consume(testCtx(t), t, cl, n)
	offs, err := e.direct().FetchOffsets(testCtx(t), "es-py:$Default")
	if err != nil {
		t.Fatalf("fetch upstream offsets: %v", err)
	}
	if sum := sumOffsets(offs); sum != n {
		t.Fatalf("es-py:$Default committed %d, want %d", sum, n)
	}
	t.Logf("kafka-python produced and consumed %d records; es-py:$Default committed %d upstream", n, sumOffsets(offs))
}

func first(s []string) string {
	if len(s) == 0 {
		return ""
	}
	return s[0]
}
