package fabrictest

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/fabrictest/fabrictest/emulator/wire"
)

// Record is one Kafka record with the columns Spark's Kafka source gives
// it: key, value, topic, partition, offset, timestamp, timestampType and
// headers. Eventstream.Consume (HTTP) and Eventstream.Records (Kafka
// protocol) both return Records, so the same assertions apply to both.
//
// Its JSON form is a record of the emulator's consume route (GET
// /v1/eventstreams/{id}/sources/{ds}/events): key, value and header values
// in base64 (null stays null), timestamp in RFC 3339. A test that calls the
// route itself decodes the answer into a ConsumeAnswer.
type Record wire.Record

// Header is one Kafka record header. A nil Value is a null header value.
type Header = wire.Header

// ConsumeAnswer is the consume route's answer (wire.ConsumeAnswer): the
// records read, in partition then offset order, and where a next read
// starts (Complete, Count, NextOffsets).
type ConsumeAnswer struct {
	wire.ConsumeAnswer
	// Value holds the records read, as Records (it is decoded here, not
	// into the embedded answer's Value).
	Value Records `json:"value"`
}

// DecodeValue unmarshals the record's JSON value into v.
func (r Record) DecodeValue(v any) error {
	if err := json.Unmarshal(r.Value, v); err != nil {
		return fmt.Errorf("record %s: value is not the JSON wanted: %w", r.position(), err)
	}
	return nil
}

// Header returns the value of the first header named key and whether there
// is one.
func (r Record) Header(key string) ([]byte, bool) {
	for _, h := range r.Headers {
		if h.Key == key {
			return h.Value, true
		}
	}
	return nil, false
}

func (r Record) position() string { return fmt.Sprintf("p%d@%d", r.Partition, r.Offset) }

// String renders the record on one line for failure messages, such as
// `p2@17 key="o-1" value={"amount":12.5} headers=[source="curl"]`.
func (r Record) String() string {
	var b strings.Builder
	b.WriteString(r.position())
	b.WriteString(" key=" + showBytes(r.Key))
	b.WriteString(" value=" + showBytes(r.Value))
	if len(r.Headers) > 0 {
		b.WriteString(" headers=[")
		for i, h := range r.Headers {
			if i > 0 {
				b.WriteString(" ")
			}
			b.WriteString(strconv.Quote(h.Key) + "=" + showBytes(h.Value))
		}
		b.WriteString("]")
	}
	return b.String()
}

// Records is a list of records, in partition then offset order.
type Records []Record

// Values returns the record values as strings, in order.
func (rs Records) Values() []string {
	out := make([]string, len(rs))
	for i, r := range rs {
		out[i] = string(r.Value)
	}
	return out
}

// Keys returns the record keys as strings, in order ("" for no key).
func (rs Records) Keys() []string {
	out := make([]string, len(rs))
	for i, r := range rs {
		out[i] = string(r.Key)
	}
	return out
}

// String renders the records one per line (at most 20, then a count).
func (rs Records) String() string { return summarize([]Record(rs), "") }

// GomegaString makes gomega print records readably in any matcher's
// failure message, not as byte arrays.
func (rs Records) GomegaString() string { return summarize([]Record(rs), "    ") }

// sortRecords orders records by partition, then offset.
func sortRecords(rs []Record) {
	sort.SliceStable(rs, func(i, j int) bool {
		if rs[i].Partition != rs[j].Partition {
			return rs[i].Partition < rs[j].Partition
		}
		return rs[i].Offset < rs[j].Offset
	})
}

// maxShown bounds the records a message lists.
const maxShown = 20

// summarize lists records one per line with indent, at most maxShown.
func summarize(rs []Record, indent string) string {
	if len(rs) == 0 {
		return indent + "<no records>"
	}
	var b strings.Builder
	topics := map[string]bool{}
	for _, r := range rs {
		topics[r.Topic] = true
	}
	if len(topics) == 1 {
		fmt.Fprintf(&b, "%s%d record(s) in topic %s:\n", indent, len(rs), rs[0].Topic)
	} else {
		fmt.Fprintf(&b, "%s%d record(s) in %d topics:\n", indent, len(rs), len(topics))
	}
	for i, r := range rs {
		if i == maxShown {
			fmt.Fprintf(&b, "%s  … and %d more\n", indent, len(rs)-maxShown)
			break
		}
		if len(topics) > 1 {
			b.WriteString(indent + "  " + r.Topic + " " + r.String() + "\n")
		} else {
			b.WriteString(indent + "  " + r.String() + "\n")
		}
	}
	return strings.TrimRight(b.String(), "\n")
}

// showBytes renders bytes as quoted text when they are printable UTF-8 (a
// JSON object or array unquoted), else as base64, shortened past 120 bytes.
func showBytes(b []byte) string {
	if b == nil {
		return "<null>"
	}
	const max = 120
	short, more := b, ""
	if len(b) > max {
		short, more = b[:max], fmt.Sprintf("…(%d bytes)", len(b))
	}
	if utf8.Valid(b) && printable(string(short)) {
		s := string(short)
		if (strings.HasPrefix(s, "{") || strings.HasPrefix(s, "[")) && !strings.ContainsAny(s, "\n\r") {
			return s + more
		}
		return strconv.Quote(s) + more
	}
	return "base64:" + base64.StdEncoding.EncodeToString(short) + more
}

func printable(s string) bool {
	for _, r := range s {
		if !unicode.IsPrint(r) && r != '\n' && r != '\t' && r != utf8.RuneError {
			return false
		}
	}
	return true
}
