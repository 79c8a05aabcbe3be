package eventbody

import (
	"net/http"
	"slices"
	"strconv"

	"github.com/fabrictest/fabrictest/emulator/internal/broker"
)

// AppendProduceAnswer appends the produce route's answer to b,
// {"events", "partitions", "produced", "topic"}, byte for byte what the
// JSON encoder gives for that map, without reflection: one position per
// event.
func AppendProduceAnswer(b []byte, topic string, pos []broker.Position) []byte {
	b = slices.Grow(b, 128+len(topic)*6+40*len(pos))
	b = append(b, `{"events":[`...)
	for i, p := range pos {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"partition":`...)
		b = strconv.AppendInt(b, int64(p.Partition), 10)
		b = append(b, `,"offset":`...)
		b = strconv.AppendInt(b, p.Offset, 10)
		b = append(b, '}')
	}
	b = append(b, `],"partitions":[`...)
	for i, s := range summarize(pos) {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"partition":`...)
		b = strconv.AppendInt(b, int64(s.Partition), 10)
		b = append(b, `,"firstOffset":`...)
		b = strconv.AppendInt(b, s.FirstOffset, 10)
		b = append(b, `,"lastOffset":`...)
		b = strconv.AppendInt(b, s.LastOffset, 10)
		b = append(b, `,"count":`...)
		b = strconv.AppendInt(b, int64(s.Count), 10)
		b = append(b, '}')
	}
	b = append(b, `],"produced":`...)
	b = strconv.AppendInt(b, int64(len(pos)), 10)
	b = append(b, `,"topic":`...)
	b = appendJSONString(b, topic)
	return append(b, "}\n"...)
}

// WriteProduceAnswer writes answer, made by AppendProduceAnswer, with
// status 200.
func WriteProduceAnswer(w http.ResponseWriter, answer []byte) error {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("Content-Length", strconv.Itoa(len(answer)))
	w.WriteHeader(http.StatusOK)
	_, err := w.Write(answer)
	return err
}
