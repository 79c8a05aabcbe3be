package fabrictest_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	. "github.com/onsi/gomega"

	"github.com/fabrictest/fabrictest/fabrictest"
)

func sampleRecords() fabrictest.Records {
	ts := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	return fabrictest.Records{
		{Topic: "es.ds", Partition: 0, Offset: 0, Key: []byte("o-1"), Value: []byte(`{"amount":12.5}`), Timestamp: ts,
			Headers: []fabrictest.Header{{Key: "source", Value: []byte("test")}}},
		{Topic: "es.ds", Partition: 2, Offset: 7, Value: []byte("plain text"), Timestamp: ts},
		{Topic: "es.ds", Partition: 3, Offset: 1, Key: []byte{0xff}, Value: nil, Timestamp: ts},
	}
}

// failure returns the message gomega gives when actual does not match m.
func failure(actual any, m interface {
	Match(any) (bool, error)
	FailureMessage(any) string
}) (bool, string) {
	ok, err := m.Match(actual)
	if err != nil {
		return false, "error: " + err.Error()
	}
	return ok, m.FailureMessage(actual)
}

func TestHaveRecordCount(t *testing.T) {
	rs := sampleRecords()
	g := NewWithT(t)
	g.Expect(rs).To(fabrictest.HaveRecordCount(3))
	g.Expect([]fabrictest.Record(rs)).To(fabrictest.HaveRecordCount(3))
	g.Expect(rs).NotTo(fabrictest.HaveRecordCount(2))

	ok, msg := failure(rs, fabrictest.HaveRecordCount(5))
	t.Logf("HaveRecordCount(5) failure message:\n%s", msg)
	g.Expect(ok).To(BeFalse())
	for _, want := range []string{
		"Expected 5 record(s), found 3:",
		"3 record(s) in topic es.ds:",
		`p0@0 key="o-1" value={"amount":12.5} headers=["source"="test"]`,
		`p2@7 key=<null> value="plain text"`,
		`p3@1 key=base64:/w== value=<null>`,
	} {
		g.Expect(msg).To(ContainSubstring(want))
	}

	// A wrong actual type is an error, not a mismatch.
	_, err := fabrictest.HaveRecordCount(1).Match("nope")
	g.Expect(err).To(MatchError(ContainSubstring("Matcher expected actual of type <[]fabrictest.Record>")))
}

func TestHaveRecordsWithValues(t *testing.T) {
	rs := sampleRecords()
	g := NewWithT(t)
	g.Expect(rs).To(fabrictest.HaveRecordsWithValues(nil, "plain text", map[string]any{"amount": 12.5}))
	g.Expect(rs).NotTo(fabrictest.HaveRecordsWithValues("plain text", map[string]any{"amount": 12.5}))

	ok, msg := failure(rs, fabrictest.HaveRecordsWithValues("plain text", map[string]any{"amount": 13}, "missing"))
	t.Logf("HaveRecordsWithValues failure message:\n%s", msg)
	g.Expect(ok).To(BeFalse())
	g.Expect(msg).To(ContainSubstring("missing:\n    {\"amount\":13}\n    \"missing\""))
	g.Expect(msg).To(ContainSubstring("not expected:\n    p0@0 {\"amount\":12.5}\n    p3@1 <null>"))
	g.Expect(msg).To(ContainSubstring("found:\n    3 record(s)"))
}

func TestHaveErrorCode(t *testing.T) {
	g := NewWithT(t)
	notFound := &fabrictest.APIError{Method: "GET", Path: "/v1/eventstreams/x/sources/y", Status: 404,
		ErrorEnvelope: fabrictest.ErrorEnvelope{ErrorCode: "ItemNotFound", Message: `The requested Eventstream "x" could not be found`, RequestID: "r-1"}}
	g.Expect(notFound).To(fabrictest.HaveErrorCode("ItemNotFound"))
	g.Expect(errors.Join(errors.New("wrapped"), notFound)).To(fabrictest.HaveErrorCode("ItemNotFound"))

	ok, msg := failure(notFound, fabrictest.HaveErrorCode("InsufficientPrivileges"))
	t.Logf("HaveErrorCode failure message:\n%s", msg)
	g.Expect(ok).To(BeFalse())
	g.Expect(msg).To(Equal(`Expected the call to fail with Fabric errorCode "InsufficientPrivileges", but it answered 404 ItemNotFound:
    GET /v1/eventstreams/x/sources/y
    message: The requested Eventstream "x" could not be found
    requestId: r-1`))

	ok, msg = failure(nil, fabrictest.HaveErrorCode("ItemNotFound"))
	g.Expect(ok).To(BeFalse())
	g.Expect(msg).To(HaveSuffix("but it succeeded (no error)"))

	ok, msg = failure(errors.New("dial tcp: refused"), fabrictest.HaveErrorCode("ItemNotFound"))
	g.Expect(ok).To(BeFalse())
	g.Expect(msg).To(ContainSubstring("failed without an answer from the emulator:\n    dial tcp: refused"))
}

// TestMatcherInsideEventually checks that a failing Eventually reports the
// matcher's message with what it last found.
func TestMatcherInsideEventually(t *testing.T) {
	t.Parallel()
	env := fabrictest.Start(t)
	es := env.Workspace("ws").Eventstream("es")
	es.ProduceJSON(map[string]any{"id": 1}, map[string]any{"id": 2})

	var msg string
	g := NewGomega(func(message string, _ ...int) { msg = message })
	g.Eventually(es.TryRecords).WithTimeout(300 * time.Millisecond).WithPolling(50 * time.Millisecond).
		Should(fabrictest.HaveRecordCount(3))
	t.Logf("Eventually failure message:\n%s", msg)
	for _, want := range []string{"Timed out after", "Expected 3 record(s), found 2:", `value={"id":1}`, `value={"id":2}`} {
		if !strings.Contains(msg, want) {
			t.Errorf("message lacks %q", want)
		}
	}
}

// Records print readably in gomega's own matchers too.
func TestRecordsGomegaString(t *testing.T) {
	var msg string
	g := NewGomega(func(message string, _ ...int) { msg = message })
	g.Expect(sampleRecords()).To(BeEmpty())
	if !strings.Contains(msg, `p0@0 key="o-1" value={"amount":12.5}`) {
		t.Fatalf("BeEmpty message does not show the records readably:\n%s", msg)
	}
}
