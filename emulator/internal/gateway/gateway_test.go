package gateway

import (
	"errors"
	"net"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// TestProduceConsumeResume produces through the gateway, consumes the
// records back in a group, commits, and checks that a new member of the
// group resumes after the committed offsets.
func TestProduceConsumeResume(t *testing.T) {
	e := newEnv(t)
	ctx := testCtx(t)
	pass := e.grant("key_send", testTopic, "")

	first := makeRecords(testTopic, "first", 300)
	prod := e.client(pass)
	if err := prod.ProduceSync(ctx, first...).FirstErr(); err != nil {
		t.Fatalf("produce: %v", err)
	}

	group := []kgo.Opt{
		kgo.ConsumerGroup("$Default"),
		kgo.ConsumeTopics(testTopic),
		kgo.DisableAutoCommit(),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()),
	}
	c1 := e.client(pass, group...)
	got := consume(ctx, t, c1, len(first))
	sameRecords(t, got, first)
	if err := c1.CommitUncommittedOffsets(ctx); err != nil {
		t.Fatalf("commit: %v", err)
	}
	c1.Close()

	second := makeRecords(testTopic, "second", 40)
	for _, r := range second {
		r.Key = append([]byte("second-"), r.Key...)
	}
	if err := prod.ProduceSync(ctx, second...).FirstErr(); err != nil {
		t.Fatalf("produce again: %v", err)
	}
	c2 := e.client(pass, group...)
	got = consume(ctx, t, c2, len(second))
	// Nothing from the first batch comes back, and nothing more arrives.
	if more := c2.PollRecords(shortCtx(t, 300*time.Millisecond), 1000); len(more.Records()) > 0 {
		got = append(got, more.Records()...)
	}
	sameRecords(t, got, second)
	t.Logf("consumed %d records, committed, rejoined and resumed with exactly the %d new ones", len(first), len(second))
}

// TestWrongKey checks that a refused connection string fails SASL with the
// authenticator's message, like a broker's own authentication.
func TestWrongKey(t *testing.T) {
	e := newEnv(t)
	ctx := testCtx(t)
	e.grant("key_good", testTopic, "")
	cl := e.client("Endpoint=sb://x/;SharedAccessKeyName=key_good;SharedAccessKey=d3Jvbmc=;EntityPath=" + testTopic)
	err := cl.Ping(ctx)
	if !errors.Is(err, kerr.SaslAuthenticationFailed) {
		t.Fatalf("ping with a wrong key: %v, want SASL_AUTHENTICATION_FAILED", err)
	}
	if !strings.Contains(err.Error(), "SharedAccessKey does not match") {
		t.Fatalf("error %q does not carry the authenticator's message", err)
	}
	t.Logf("wrong key refused: %v", err)
}

// TestForeignTopics checks that a connection sees and touches only its
// topic, and that nothing it names is auto-created upstream.
func TestForeignTopics(t *testing.T) {
	e := newEnv(t, kfake.AllowAutoTopicCreation())
	ctx := testCtx(t)
	pass := e.grant("key_a", testTopic, "")
	cl := e.client(pass, kgo.AllowAutoTopicCreation())

	// A producer's metadata lookup of a foreign or unknown topic fails.
	for _, topic := range []string{otherTopic, "brand-new"} {
		err := cl.ProduceSync(ctx, &kgo.Record{Topic: topic, Value: []byte("x")}).FirstErr()
		if !errors.Is(err, kerr.TopicAuthorizationFailed) {
			t.Fatalf("produce to %s: %v, want TOPIC_AUTHORIZATION_FAILED", topic, err)
		}
	}

	// Metadata for all topics lists only the granted one, on the gateway.
	meta, err := kmsg.NewPtrMetadataRequest().RequestWith(ctx, cl)
	if err != nil {
		t.Fatalf("metadata: %v", err)
	}
	if len(meta.Topics) != 1 || *meta.Topics[0].Topic != testTopic {
		t.Fatalf("metadata lists %d topics, want only %s", len(meta.Topics), testTopic)
	}
	if len(meta.Brokers) != 1 || net.JoinHostPort(meta.Brokers[0].Host, itoa(meta.Brokers[0].Port)) != e.gw.Addr() {
		t.Fatalf("metadata brokers %+v, want the gateway %s", meta.Brokers, e.gw.Addr())
	}
	node := meta.Brokers[0].NodeID

	// Produce, Fetch (by name and by id) and ListOffsets naming a foreign
	// topic are answered by the gateway, never forwarded.
	produce := kmsg.NewPtrProduceRequest()
	produce.Acks, produce.TimeoutMillis = -1, 5000
	pt := kmsg.NewProduceRequestTopic()
	pt.Topic = otherTopic
	pp := kmsg.NewProduceRequestTopicPartition()
	pp.Records = oneBatch(t)
	pt.Partitions = append(pt.Partitions, pp)
	produce.Topics = append(produce.Topics, pt)
	presp, err := produce.RequestWith(ctx, cl.Broker(int(node)))
	if err != nil {
		t.Fatalf("raw produce: %v", err)
	}
	if c := presp.Topics[0].Partitions[0].ErrorCode; c != kerr.TopicAuthorizationFailed.Code {
		t.Fatalf("raw produce to %s: error code %d, want 29", otherTopic, c)
	}

	// The other topic's id becomes known to the gateway once a connection
	// granted that topic looks it up.
	otherCl := e.client(e.grant("key_other", otherTopic, ""))
	om, err := kmsg.NewPtrMetadataRequest().RequestWith(ctx, otherCl)
	if err != nil || len(om.Topics) != 1 {
		t.Fatalf("metadata of %s: %v, %d topics", otherTopic, err, len(om.Topics))
	}
	for _, fetchVersion := range []int16{12, 13} {
		fetch := kmsg.NewPtrFetchRequest()
		fetch.SetVersion(fetchVersion)
		fetch.MaxWaitMillis, fetch.MaxBytes, fetch.SessionEpoch = 100, 1<<20, -1
		ft := kmsg.NewFetchRequestTopic()
		ft.Topic, ft.TopicID = otherTopic, om.Topics[0].TopicID
		fp := kmsg.NewFetchRequestTopicPartition()
		fp.PartitionMaxBytes = 1 << 20
		ft.Partitions = append(ft.Partitions, fp)
		fetch.Topics = append(fetch.Topics, ft)
		fresp, err := fetch.RequestWith(ctx, cl.Broker(int(node)))
		if err != nil {
			t.Fatalf("raw fetch v%d: %v", fetchVersion, err)
		}
		if c := fresp.Topics[0].Partitions[0].ErrorCode; c != kerr.TopicAuthorizationFailed.Code {
			t.Fatalf("raw fetch v%d of %s: error code %d, want 29", fetchVersion, otherTopic, c)
		}
	}
	lo := kmsg.NewPtrListOffsetsRequest()
	lt := kmsg.NewListOffsetsRequestTopic()
	lt.Topic = otherTopic
	lt.Partitions = append(lt.Partitions, kmsg.NewListOffsetsRequestTopicPartition())
	lo.Topics = append(lo.Topics, lt)
	loresp, err := lo.RequestWith(ctx, cl.Broker(int(node)))
	if err != nil {
		t.Fatalf("list offsets: %v", err)
	}
	if c := loresp.Topics[0].Partitions[0].ErrorCode; c != kerr.TopicAuthorizationFailed.Code {
		t.Fatalf("list offsets of %s: error code %d, want 29", otherTopic, c)
	}

	// A request naming both topics is split: the granted part goes
	// upstream, the foreign part is answered with an error, in one response.
	mixed := kmsg.NewPtrListOffsetsRequest()
	for _, topic := range []string{testTopic, otherTopic} {
		mt := kmsg.NewListOffsetsRequestTopic()
		mt.Topic = topic
		mp := kmsg.NewListOffsetsRequestTopicPartition()
		mp.Timestamp = -1
		mt.Partitions = append(mt.Partitions, mp)
		mixed.Topics = append(mixed.Topics, mt)
	}
	mresp, err := mixed.RequestWith(ctx, cl.Broker(int(node)))
	if err != nil {
		t.Fatalf("mixed list offsets: %v", err)
	}
	codes := map[string]int16{}
	for _, mt := range mresp.Topics {
		codes[mt.Topic] = mt.Partitions[0].ErrorCode
	}
	if codes[testTopic] != 0 || codes[otherTopic] != kerr.TopicAuthorizationFailed.Code || len(codes) != 2 {
		t.Fatalf("mixed list offsets v%d answered %v, want %s ok and %s 29", mresp.Version, codes, testTopic, otherTopic)
	}

	// Upstream: nothing was created and nothing was written.
	adm := e.direct()
	topics, err := adm.ListTopics(ctx)
	if err != nil {
		t.Fatalf("list upstream topics: %v", err)
	}
	names := topics.Names()
	slices.Sort(names)
	if !slices.Equal(names, []string{testTopic, otherTopic}) {
		t.Fatalf("upstream topics %v, want only the seeded two", names)
	}
	ends, err := adm.ListEndOffsets(ctx, otherTopic)
	if err != nil {
		t.Fatalf("end offsets: %v", err)
	}
	ends.Each(func(o kadmOffset) {
		if o.Offset != 0 {
			t.Fatalf("%s/%d has %d records; the gateway forwarded a foreign produce", o.Topic, o.Partition, o.Offset)
		}
	})
	t.Logf("foreign topics refused with TOPIC_AUTHORIZATION_FAILED; metadata showed only %s; upstream topics %v", testTopic, names)
}

// TestRefusedAPIs checks that administrative requests close the connection,
// that ApiVersions does not offer them, and that nothing but the SASL
// exchange is served before authentication.
func TestRefusedAPIs(t *testing.T) {
	e := newEnv(t)
	ctx := testCtx(t)
	cl := e.client(e.grant("key_admin", testTopic, ""))

	av, err := kmsg.NewPtrApiVersionsRequest().RequestWith(ctx, cl)
	if err != nil {
		t.Fatalf("api versions: %v", err)
	}
	keys := map[int16]kmsg.ApiVersionsResponseApiKey{}
	for _, k := range av.ApiKeys {
		keys[k.ApiKey] = k
	}
	if _, ok := keys[int16(kmsg.CreateTopics)]; ok {
		t.Fatalf("ApiVersions offers CreateTopics")
	}
	if k := keys[int16(kmsg.SASLHandshake)]; k.MaxVersion != 1 {
		t.Fatalf("ApiVersions SaslHandshake %+v, want max v1", k)
	}
	if k, ok := keys[int16(kmsg.SASLAuthenticate)]; !ok || k.MaxVersion < 1 {
		t.Fatalf("ApiVersions SaslAuthenticate %+v", k)
	}
	if k := keys[int16(kmsg.Produce)]; k.MaxVersion != 9 {
		t.Fatalf("ApiVersions Produce %+v, want max v9", k)
	}

	// franz-go does not even send what ApiVersions leaves out, so speak
	// the protocol by hand.
	raw := dialRaw(t, e.gw.Addr())
	raw.authenticate(e.grant("key_raw", testTopic, ""))
	ct := kmsg.NewPtrCreateTopicsRequest()
	ctt := kmsg.NewCreateTopicsRequestTopic()
	ctt.Topic, ctt.NumPartitions, ctt.ReplicationFactor = "made-by-client", 1, 1
	ct.Topics = append(ct.Topics, ctt)
	ct.TimeoutMillis = 1000
	ct.SetVersion(4)
	raw.send(ct)
	raw.expectClosed()
	if !contains(e.logs.String(), "refused request", "CreateTopics") {
		t.Fatalf("no log line names the refused CreateTopics")
	}
	topics, err := e.direct().ListTopics(ctx)
	if err != nil {
		t.Fatalf("list upstream topics: %v", err)
	}
	if topics.Has("made-by-client") {
		t.Fatalf("CreateTopics reached the upstream")
	}

	// Before authentication, Metadata closes the connection unanswered.
	pre := dialRaw(t, e.gw.Addr())
	pre.send(kmsg.NewPtrMetadataRequest())
	pre.expectClosed()
	t.Logf("CreateTopics closed the connection and was logged; ApiVersions offers %d keys; unauthenticated Metadata closed", len(av.ApiKeys))
}

// TestRevoke checks that revoking a key closes its sessions, leaves other
// keys alone, and that the refused key cannot come back.
func TestRevoke(t *testing.T) {
	e := newEnv(t)
	ctx := testCtx(t)
	passA := e.grant("key_a", testTopic, "")
	passB := e.grant("key_b", testTopic, "")
	a, b := e.client(passA), e.client(passB)
	for _, cl := range []*kgo.Client{a, b} {
		if err := cl.ProduceSync(ctx, &kgo.Record{Topic: testTopic, Value: []byte("before")}).FirstErr(); err != nil {
			t.Fatalf("produce: %v", err)
		}
	}
	e.auth.remove(passA)
	n := e.gw.Revoke("key_a")
	if n < 1 {
		t.Fatalf("Revoke closed %d sessions, want at least 1", n)
	}
	if again := e.gw.Revoke("key_a"); again != 0 {
		t.Fatalf("second Revoke closed %d sessions", again)
	}
	if err := b.ProduceSync(ctx, &kgo.Record{Topic: testTopic, Value: []byte("after")}).FirstErr(); err != nil {
		t.Fatalf("produce with the other key after Revoke: %v", err)
	}
	_, err := kmsg.NewPtrMetadataRequest().RequestWith(ctx, a)
	if !errors.Is(err, kerr.SaslAuthenticationFailed) {
		t.Fatalf("revoked client's next request: %v, want SASL_AUTHENTICATION_FAILED", err)
	}
	if err := e.client(passA).Ping(ctx); !errors.Is(err, kerr.SaslAuthenticationFailed) {
		t.Fatalf("new client with the revoked key: %v, want SASL_AUTHENTICATION_FAILED", err)
	}
	t.Logf("Revoke closed %d sessions of key_a; key_b kept producing; key_a reconnects are refused", n)
}

// TestGroupPrefix checks that two connections using the same group name
// under different prefixes get independent groups upstream.
func TestGroupPrefix(t *testing.T) {
	e := newEnv(t)
	ctx := testCtx(t)
	recs := makeRecords(testTopic, "grp", 50)
	passOne := e.grant("key_one", testTopic, "es-one:")
	passTwo := e.grant("key_two", testTopic, "es-two:")
	if err := e.client(passOne).ProduceSync(ctx, recs...).FirstErr(); err != nil {
		t.Fatalf("produce: %v", err)
	}
	for _, pass := range []string{passOne, passTwo} {
		cl := e.client(pass, kgo.ConsumerGroup("$Default"), kgo.ConsumeTopics(testTopic), kgo.DisableAutoCommit(), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
		sameRecords(t, consume(ctx, t, cl, len(recs)), recs)
		if err := cl.CommitUncommittedOffsets(ctx); err != nil {
			t.Fatalf("commit: %v", err)
		}
		// Seen from the client, the group is called $Default.
		described, err := kadmOf(cl).DescribeGroups(ctx, "$Default")
		if err != nil || described.Error() != nil {
			t.Fatalf("describe $Default through the gateway: %v %v", err, described.Error())
		}
		if _, ok := described["$Default"]; !ok {
			t.Fatalf("describe through the gateway answered %v, want $Default", described.Names())
		}
		fetched, err := kadmOf(cl).FetchOffsets(ctx, "$Default")
		if err != nil {
			t.Fatalf("fetch offsets through the gateway: %v", err)
		}
		if sum := sumOffsets(fetched); sum != int64(len(recs)) {
			t.Fatalf("committed offsets through the gateway sum to %d, want %d", sum, len(recs))
		}
		cl.Close()
	}

	adm := e.direct()
	groups, err := adm.ListGroups(ctx)
	if err != nil {
		t.Fatalf("list upstream groups: %v", err)
	}
	names := groups.Groups()
	slices.Sort(names)
	if !slices.Equal(names, []string{"es-one:$Default", "es-two:$Default"}) {
		t.Fatalf("upstream groups %v, want the two prefixed ones", names)
	}
	for _, g := range names {
		offs, err := adm.FetchOffsets(ctx, g)
		if err != nil {
			t.Fatalf("fetch upstream offsets of %s: %v", g, err)
		}
		if sum := sumOffsets(offs); sum != int64(len(recs)) {
			t.Fatalf("upstream %s offsets sum to %d, want %d", g, sum, len(recs))
		}
	}
	t.Logf("upstream groups %v each committed %d records", names, len(recs))
}
