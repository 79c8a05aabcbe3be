package broker

import (
	"fmt"
	"testing"

	"github.com/twmb/franz-go/pkg/kgo"
)

// BenchmarkProduceCall: Produce calls of 1,000 unkeyed records of about
// 100 bytes into the embedded broker, one after the other, as the HTTP
// produce benchmark makes them.
func BenchmarkProduceCall(b *testing.B) {
	const topic, n = "bench-produce", 1000
	br, err := Embedded(EmbeddedConfig{})
	if err != nil {
		b.Fatal(err)
	}
	defer br.Close()
	values := make([][]byte, n)
	for i := range values {
		values[i] = fmt.Appendf(nil, `{"id":%d,"name":"event-%d","amount":%d.5,"tags":["a","b"],"ok":true,"pad":"xxxxxxxxxxxxxxxx"}`, i, i, i)
	}
	call := func() {
		recs := make([]*kgo.Record, n)
		for i := range recs {
			recs[i] = &kgo.Record{Value: values[i]}
		}
		if _, err := br.Produce(b.Context(), topic, recs); err != nil {
			b.Fatal(err)
		}
	}
	call() // warm: topic, connections, metadata, producer ID
	for b.Loop() {
		call()
	}
	b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds(), "records/s")
}
