package eventbody

import (
	"encoding/base64"
	"net/http"
	"slices"
	"sort"
	"strconv"
	"sync"
	"time"

	"github.com/fabrictest/fabrictest/emulator/internal/broker"
	gojson "github.com/goccy/go-json"
	asmbase64 "github.com/segmentio/asm/base64"
	"github.com/twmb/franz-go/pkg/kgo"
)

// consumeTimeLayout is how a record's timestamp is written (UTC, milliseconds).
const consumeTimeLayout = "2006-01-02T15:04:05.000Z07:00"

// WriteConsumeAnswer writes the consume route's answer,
// {"complete", "count", "nextOffsets", "value"}, byte for byte what
// encoding it as a map of recordJSON gives, without reflection: the answer
// can hold millions of records. It is built in a pooled buffer sized up
// front, so a read neither grows nor clears one.
func WriteConsumeAnswer(w http.ResponseWriter, topic string, batch *broker.Batch) error {
	bp := answerBuffers.Get().(*[]byte)
	defer putAnswerBuffer(bp)
	b := (*bp)[:0]
	if size := answerSize(topic, batch); cap(b) < size {
		b = make([]byte, 0, size)
	}
	b = append(b, `{"complete":`...)
	b = strconv.AppendBool(b, batch.Complete)
	b = append(b, `,"count":`...)
	b = strconv.AppendInt(b, int64(len(batch.Records)), 10)
	b = append(b, `,"nextOffsets":{`...)
	b = appendJSONString(b, topic)
	b = append(b, ":{"...)
	b = appendNextOffsets(b, batch.Next)
	b = append(b, `}},"value":[`...)
	b = appendRecords(b, batch.Records, answerSize(topic, batch)/2)
	b = append(b, "]}\n"...)
	*bp = b
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("Content-Length", strconv.Itoa(len(b))) // not chunked
	w.WriteHeader(http.StatusOK)
	_, err := w.Write(b)
	return err
}

// parallelRecords is the fewest records whose text is written in two
// halves at once, the second on a goroutine of its own.
const parallelRecords = 256

// appendRecords writes recs, comma-separated; many records in two halves
// at once (a half's text takes about half of size bytes).
func appendRecords(b []byte, recs []*kgo.Record, size int) []byte {
	if len(recs) < parallelRecords {
		return appendRun(b, recs)
	}
	half := len(recs) / 2
	tp := answerBuffers.Get().(*[]byte)
	defer putAnswerBuffer(tp)
	done := make(chan struct{})
	go func() {
		defer close(done)
		t := (*tp)[:0]
		if cap(t) < size {
			t = make([]byte, 0, size)
		}
		*tp = appendRun(t, recs[half:])
	}()
	b = appendRun(b, recs[:half])
	<-done
	b = append(b, ',')
	return append(b, *tp...)
}

// appendRun writes recs, comma-separated, in order.
func appendRun(b []byte, recs []*kgo.Record) []byte {
	var rw recordWriter
	for i, r := range recs {
		if i > 0 {
			b = append(b, ',')
		}
		b = rw.append(b, r)
	}
	return b
}

// maxPooledAnswer is the largest answer buffer kept for the next read;
// larger ones (reads of many thousands of records) go to the collector.
const maxPooledAnswer = 4 << 20

// answerBuffers holds answer buffers between reads.
var answerBuffers = sync.Pool{New: func() any { return new([]byte) }}

func putAnswerBuffer(bp *[]byte) {
	if cap(*bp) > maxPooledAnswer {
		*bp = nil
	}
	answerBuffers.Put(bp)
}

// answerSize bounds the length of the answer from above: the base64 text
// exactly, the rest by its longest form.
func answerSize(topic string, batch *broker.Batch) int {
	const (
		envelope = 64 + 32 // members and the nextOffsets of one partition
		record   = 160     // member names, punctuation, numbers, timestamp
		header   = 24
	)
	quoted := 6*len(topic) + 2 // every byte escaped at worst
	size := envelope + quoted + 32*len(batch.Next)
	for _, r := range batch.Records {
		size += record + quoted + base64Len(r.Key) + base64Len(r.Value)
		for _, h := range r.Headers {
			size += header + 6*len(h.Key) + base64Len(h.Value)
		}
	}
	return size
}

// base64Len is the length of v as appendBase64 writes it.
func base64Len(v []byte) int {
	if v == nil {
		return len("null")
	}
	return base64.StdEncoding.EncodedLen(len(v)) + 2
}

// appendNextOffsets writes {"<partition>": offset, …} members with the
// partition keys in text order, as a JSON encoder orders map keys.
func appendNextOffsets(b []byte, next map[int32]int64) []byte {
	keys := make([]string, 0, len(next))
	for p := range next {
		keys = append(keys, strconv.Itoa(int(p)))
	}
	sort.Strings(keys)
	for i, k := range keys {
		if i > 0 {
			b = append(b, ',')
		}
		p, _ := strconv.Atoi(k)
		b = append(b, '"')
		b = append(b, k...)
		b = append(b, `":`...)
		b = strconv.AppendInt(b, next[int32(p)], 10)
	}
	return b
}

// recordWriter writes records as recordJSON encodes them, keeping what
// consecutive records share: the quoted topic and the timestamp's text up
// to the second.
type recordWriter struct {
	topic  string
	quoted []byte
	ts     timeText
}

// append writes one record.
func (rw *recordWriter) append(b []byte, r *kgo.Record) []byte {
	if rw.quoted == nil || r.Topic != rw.topic {
		rw.topic, rw.quoted = r.Topic, appendJSONString(rw.quoted[:0], r.Topic)
	}
	b = append(b, `{"key":`...)
	b = appendBase64(b, r.Key)
	b = append(b, `,"value":`...)
	b = appendBase64(b, r.Value)
	b = append(b, `,"topic":`...)
	b = append(b, rw.quoted...)
	b = append(b, `,"partition":`...)
	b = strconv.AppendInt(b, int64(r.Partition), 10)
	b = append(b, `,"offset":`...)
	b = strconv.AppendInt(b, r.Offset, 10)
	b = append(b, `,"timestamp":"`...)
	b = rw.ts.append(b, r.Timestamp)
	b = append(b, `","timestampType":`...)
	if r.Attrs.TimestampType() == 1 {
		b = append(b, '1')
	} else {
		b = append(b, '0')
	}
	b = append(b, `,"headers":[`...)
	for i, h := range r.Headers {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"key":`...)
		b = appendJSONString(b, h.Key)
		b = append(b, `,"value":`...)
		b = appendBase64(b, h.Value)
		b = append(b, '}')
	}
	return append(b, "]}"...)
}

// appendBase64 writes bytes as a JSON string of standard base64, nil as
// null. The text is encoding/base64's; segmentio/asm writes it with AVX2
// where the processor has it (about three times as fast on a value of
// 100 bytes: the encoding was a tenth of a consume's time).
func appendBase64(b, v []byte) []byte {
	if v == nil {
		return append(b, "null"...)
	}
	n := asmbase64.StdEncoding.EncodedLen(len(v))
	b = slices.Grow(b, n+2)
	b = append(b, '"')
	b = b[:len(b)+n]
	asmbase64.StdEncoding.Encode(b[len(b)-n:], v)
	return append(b, '"')
}

// appendJSONString writes s as a JSON string; text that needs no escape is
// copied, the rest goes through the JSON encoder (which escapes HTML too).
func appendJSONString(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			q, _ := gojson.Marshal(s)
			return append(b, q...)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}

// timeText formats record timestamps, reusing the text up to the second
// while consecutive records share it.
type timeText struct {
	sec    int64
	prefix []byte // "2006-01-02T15:04:05." of sec
}

// append writes t in UTC as consumeTimeLayout does.
func (tt *timeText) append(b []byte, t time.Time) []byte {
	t = t.UTC()
	if y := t.Year(); y < 0 || y > 9999 {
		return t.AppendFormat(b, consumeTimeLayout)
	}
	if sec := t.Unix(); tt.prefix == nil || sec != tt.sec {
		tt.sec = sec
		tt.prefix = t.AppendFormat(tt.prefix[:0], "2006-01-02T15:04:05.")
	}
	b = append(b, tt.prefix...)
	ms := t.Nanosecond() / int(time.Millisecond)
	return append(b, byte('0'+ms/100), byte('0'+ms/10%10), byte('0'+ms%10), 'Z')
}
