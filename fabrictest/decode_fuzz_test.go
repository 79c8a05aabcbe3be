package fabrictest_test

import (
	"encoding/json"
	"testing"

	"github.com/fabrictest/fabrictest/emulator/wire"
	"github.com/fabrictest/fabrictest/fabrictest"
)

// FuzzDestinationDecode: a Destination decodes exactly what wire.Destination
// decodes from the same answer (a missing delivery reads as zero counts).
func FuzzDestinationDecode(f *testing.F) {
	f.Add([]byte(`{"id":"d","type":"Lakehouse","workspaceId":"w","itemId":"i","table":"t","status":"Running","delivery":{"delivered":3,"failedAttempts":1,"bufferedRows":2,"rejectedRows":1,"lastRejection":"r"}}`))
	f.Add([]byte(`{"id":"d","name":"n","type":"Activator","status":"Failed","error":{"errorCode":"DestinationFailed","errorMessage":"m"},"delivery":{"delivered":0,"failedAttempts":0,"lastError":"m"}}`))
	f.Add([]byte(`{"id":"d","status":"Inactive"}`))
	f.Fuzz(func(t *testing.T, raw []byte) {
		var w wire.Destination
		werr := json.Unmarshal(raw, &w)
		var d fabrictest.Destination
		derr := json.Unmarshal(raw, &d)
		if (werr == nil) != (derr == nil) {
			t.Fatalf("wire: %v, fabrictest: %v", werr, derr)
		}
		if werr != nil {
			return
		}
		if d.ID != w.ID || d.Type != w.Type || d.Status != w.Status || d.Table != w.Table || d.Database != w.Database || d.ItemID != w.ItemID {
			t.Fatalf("fields differ: %+v vs %+v", d, w)
		}
		var want fabrictest.Delivery
		if w.Delivery != nil {
			want = fabrictest.Delivery{Delivered: w.Delivery.Delivered, FailedAttempts: w.Delivery.FailedAttempts, LastError: w.Delivery.LastError,
				LastKafkaError: w.Delivery.LastKafkaError, RejectedRows: w.Delivery.RejectedRows, LastRejection: w.Delivery.LastRejection}
			if w.Delivery.BufferedRows != nil {
				want.BufferedRows = *w.Delivery.BufferedRows
			}
		}
		if d.Delivery != want {
			t.Fatalf("delivery %+v, want %+v", d.Delivery, want)
		}
	})
}

// FuzzJobInstanceDecode: a JobInstance decodes what wire.JobInstance
// decodes, or refuses a time that is not Fabric's UTC form.
func FuzzJobInstanceDecode(f *testing.F) {
	f.Add([]byte(`{"id":"j","itemId":"i","jobType":"RunNotebook","invokeType":"Manual","status":"Completed","rootActivityId":"j","startTimeUtc":"2026-01-02T03:04:05.1234567","endTimeUtc":"2026-01-02T03:04:06.0000000","failureReason":null}`))
	f.Add([]byte(`{"id":"j","status":"Failed","failureReason":{"errorCode":"NoJobRunner","message":"m"},"triggerEvent":{"Key":"k","Value":"{}","EventType":"e","Source":{"itemId":"i","partition":1,"offset":-1}}}`))
	f.Add([]byte(`{"id":"j","startTimeUtc":"yesterday"}`))
	f.Fuzz(func(t *testing.T, raw []byte) {
		var w wire.JobInstance
		if json.Unmarshal(raw, &w) != nil {
			return
		}
		var j fabrictest.JobInstance
		if err := json.Unmarshal(raw, &j); err != nil {
			return // a time not in Fabric's form: refused with its field named
		}
		if j.ID != w.ID || j.Status != w.Status || j.JobType != w.JobType || (j.FailureReason == nil) != (w.FailureReason == nil) || (j.TriggerEvent == nil) != (w.TriggerEvent == nil) {
			t.Fatalf("fields differ: %+v vs %+v", j, w)
		}
		if w.StartTimeUtc == "" && !j.StartTimeUtc.IsZero() {
			t.Fatalf("startTimeUtc %q read as %v", w.StartTimeUtc, j.StartTimeUtc)
		}
	})
}
