package rows

import "testing"

// BenchmarkCheckValue is the produce route's per-event limit check on a
// typical 150-byte event (the one-pass scan, no decoding).
func BenchmarkCheckValue(b *testing.B) {
	v := []byte(`{"orderId":"o-000123","customer":{"id":42,"tier":"gold"},"items":[{"sku":"A-1","qty":2},{"sku":"B-7","qty":1}],"amount":12.5,"ts":"2026-11-30T17:00:00Z"}`)
	b.SetBytes(int64(len(v)))
	for b.Loop() {
		if err := CheckValue(v); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkScanFlat is the Lakehouse drain's read of a small plain event
// (a string, a long, a double), as the drain benchmark produces them.
func BenchmarkScanFlat(b *testing.B) {
	v := []byte(`{"device":"d42","seq":123456,"temp":21.5}`)
	var ms []Member
	b.SetBytes(int64(len(v)))
	for b.Loop() {
		var ok bool
		if ms, ok = ScanFlat(ms, v); !ok || len(ms) != 3 {
			b.Fatal("not flat")
		}
	}
}
