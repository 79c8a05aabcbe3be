package eventbody

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"time"

	"github.com/fabrictest/fabrictest/emulator/internal/broker"
	"github.com/fabrictest/fabrictest/emulator/internal/control"
	"github.com/fabrictest/fabrictest/emulator/internal/fabricerr"
	gojson "github.com/goccy/go-json"
	"github.com/twmb/franz-go/pkg/kgo"
)

// partitionSummary tells where a produce wrote in one partition.
type partitionSummary struct {
	Partition   int32 `json:"partition"`
	FirstOffset int64 `json:"firstOffset"`
	LastOffset  int64 `json:"lastOffset"`
	Count       int   `json:"count"`
}

func summarize(pos []broker.Position) []partitionSummary {
	by := map[int32]*partitionSummary{}
	for _, p := range pos {
		s, ok := by[p.Partition]
		if !ok {
			s = &partitionSummary{Partition: p.Partition, FirstOffset: p.Offset, LastOffset: p.Offset}
			by[p.Partition] = s
		}
		s.FirstOffset, s.LastOffset = min(s.FirstOffset, p.Offset), max(s.LastOffset, p.Offset)
		s.Count++
	}
	out := make([]partitionSummary, 0, len(by))
	for _, s := range by {
		out = append(out, *s)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Partition < out[j].Partition })
	return out
}

// eventIn is one event of a produce body.
type eventIn struct {
	Key         json.RawMessage `json:"key"`
	Value       json.RawMessage `json:"value"`
	KeyBase64   *string         `json:"keyBase64"`
	ValueBase64 *string         `json:"valueBase64"`
	Headers     json.RawMessage `json:"headers"`
	Timestamp   json.RawMessage `json:"timestamp"`

	// What fastEvents learnt while it read Value: it has no white space
	// between tokens; it is an object that certainly passes rows.CheckValue.
	// The strict decoder leaves both false, and the checks are made.
	valueCompact, valueFitsRow bool
}

// Parse validates the whole produce body and turns it into records
// made in sc. Valid bodies are decoded once; a body the strict decoder
// refuses is decoded again event by event, only to name the event at fault.
func Parse(body []byte, now time.Time, sc *Scratch) ([]*kgo.Record, error) {
	var req struct {
		Events *[]eventIn `json:"events"`
	}
	if evs, ok := fastEvents(body, &sc.events); ok {
		req.Events = &evs
	} else if err := strictEvents(body, &req.Events); err != nil {
		return nil, err
	}
	if req.Events == nil {
		return nil, fabricerr.BadParameter("events", "is required: send {\"events\": [{\"value\": …}]}")
	}
	if len(*req.Events) == 0 {
		return nil, fabricerr.BadParameter("events", "is empty; send at least one event")
	}
	records := sc.recordsFor(len(*req.Events))
	for i, ev := range *req.Events {
		if err := toRecord(ev, i, now, records[i]); err != nil {
			return nil, err
		}
	}
	return records, nil
}

// explainEvents finds the event that made the strict decode fail.
func explainEvents(body []byte, err error) error {
	var req struct {
		Events *[]json.RawMessage `json:"events"`
	}
	if e := fabricerr.DecodeJSON(body, &req); e != nil || req.Events == nil {
		return firstNonNil(e, err)
	}
	for i, raw := range *req.Events {
		field := fmt.Sprintf("events[%d]", i)
		if t := firstByte(raw); t != '{' {
			return fabricerr.BadParameter(field, "want an object {\"key\"?, \"value\", \"headers\"?, \"timestamp\"?}, got %s", kindOf(t))
		}
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.DisallowUnknownFields()
		var ev eventIn
		if e := dec.Decode(&ev); e != nil {
			return fabricerr.JSON(field, e)
		}
	}
	return err
}

func firstNonNil(errs ...error) error {
	for _, e := range errs {
		if e != nil {
			return e
		}
	}
	return nil
}

// toRecord checks one decoded event and builds its record in r.
func toRecord(ev eventIn, i int, now time.Time, r *kgo.Record) error {
	field := func(sub string) string { return fmt.Sprintf("events[%d]%s", i, sub) }
	r.Timestamp = now
	switch {
	case ev.Value != nil && ev.ValueBase64 != nil:
		return fabricerr.BadParameter(field(".valueBase64"), "send value or valueBase64, not both")
	case ev.ValueBase64 != nil:
		b, err := base64.StdEncoding.DecodeString(*ev.ValueBase64)
		if err != nil {
			return fabricerr.BadParameter(field(".valueBase64"), "is not standard base64: %v", err)
		}
		r.Value = b
	case ev.Value != nil:
		r.Value = payload(ev.Value, ev.valueCompact)
	default:
		return fabricerr.BadParameter(field(".value"), "is required (use null for a Kafka null value, or valueBase64 for bytes)")
	}
	switch {
	case ev.Key != nil && ev.KeyBase64 != nil:
		return fabricerr.BadParameter(field(".keyBase64"), "send key or keyBase64, not both")
	case ev.KeyBase64 != nil:
		b, err := base64.StdEncoding.DecodeString(*ev.KeyBase64)
		if err != nil {
			return fabricerr.BadParameter(field(".keyBase64"), "is not standard base64: %v", err)
		}
		r.Key = b
	case ev.Key != nil:
		r.Key = payload(ev.Key, false)
	}
	if ev.Headers != nil && string(ev.Headers) != "null" {
		hs, err := parseHeaders(ev.Headers, field(".headers"))
		if err != nil {
			return err
		}
		r.Headers = hs
	}
	if ev.Timestamp != nil && string(ev.Timestamp) != "null" {
		ts, err := parseTimestamp(ev.Timestamp)
		if err != nil {
			return fabricerr.BadParameter(field(".timestamp"), "%v", err)
		}
		r.Timestamp = ts
	}
	return eventError(control.CheckEvent(i, r, ev.valueFitsRow), field)
}

// payload turns a JSON value into record bytes: strings as their text,
// null as nil, anything else compacted (compact tells it is already).
func payload(raw json.RawMessage, compact bool) []byte {
	switch firstByte(raw) {
	case 'n':
		return nil
	case '"':
		if inner := raw[1 : len(raw)-1]; bytes.IndexByte(inner, '\\') < 0 {
			return inner // no escapes: the text is the bytes
		}
		var s string
		_ = json.Unmarshal(raw, &s)
		return []byte(s)
	}
	if compact || !hasSpace(raw) {
		return raw // already compact
	}
	var b bytes.Buffer
	_ = json.Compact(&b, raw)
	return b.Bytes()
}

// hasSpace tells whether raw holds a JSON white-space byte.
func hasSpace(raw []byte) bool {
	for _, c := range raw {
		if c <= ' ' && (c == ' ' || c == '\t' || c == '\r' || c == '\n') {
			return true
		}
	}
	return false
}

// parseHeaders accepts {"name": "value", …} (order kept) or
// [{"key": "name", "value": "value"|null}, …] (repeats allowed).
func parseHeaders(raw json.RawMessage, field string) ([]kgo.RecordHeader, error) {
	var out []kgo.RecordHeader
	switch firstByte(raw) {
	case '[':
		var list []struct {
			Key   *string `json:"key"`
			Value *string `json:"value"`
		}
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&list); err != nil {
			return nil, fabricerr.BadParameter(field, "want [{\"key\": string, \"value\": string|null}]: %s", fabricerr.DescribeJSON(err))
		}
		for i, h := range list {
			if h.Key == nil {
				return nil, fabricerr.BadParameter(fmt.Sprintf("%s[%d].key", field, i), "is required")
			}
			hd := kgo.RecordHeader{Key: *h.Key}
			if h.Value != nil {
				hd.Value = []byte(*h.Value)
			}
			out = append(out, hd)
		}
	case '{':
		dec := json.NewDecoder(bytes.NewReader(raw))
		_, _ = dec.Token() // {
		for dec.More() {
			k, _ := dec.Token()
			v, err := dec.Token()
			if err != nil {
				return nil, fabricerr.BadParameter(field, "%v", err)
			}
			switch v := v.(type) {
			case string:
				out = append(out, kgo.RecordHeader{Key: k.(string), Value: []byte(v)})
			case nil:
				out = append(out, kgo.RecordHeader{Key: k.(string)})
			default:
				return nil, fabricerr.BadParameter(field+"."+k.(string), "a header value must be a string or null")
			}
		}
	default:
		return nil, fabricerr.BadParameter(field, "want an object of strings or a list of {key, value}, got %s", kindOf(firstByte(raw)))
	}
	return out, nil
}

// parseTimestamp accepts RFC 3339 text or epoch milliseconds.
func parseTimestamp(raw json.RawMessage) (time.Time, error) {
	if firstByte(raw) == '"' {
		var s string
		_ = json.Unmarshal(raw, &s)
		t, err := time.Parse(time.RFC3339Nano, s)
		if err != nil {
			return t, fmt.Errorf("want RFC 3339 text or epoch milliseconds, got %q", s)
		}
		return t, nil
	}
	ms, err := strconv.ParseInt(string(raw), 10, 64)
	if err != nil {
		return time.Time{}, fmt.Errorf("want RFC 3339 text or integer epoch milliseconds, got %s", raw)
	}
	return time.UnixMilli(ms), nil
}

// firstByte is raw's first byte after white space; 0 when there is none.
func firstByte(raw []byte) byte {
	for _, c := range raw {
		if c != ' ' && c != '\t' && c != '\r' && c != '\n' {
			return c
		}
	}
	return 0
}

func kindOf(b byte) string {
	switch b {
	case '{':
		return "an object"
	case '[':
		return "an array"
	case '"':
		return "a string"
	case 'n':
		return "null"
	case 't', 'f':
		return "a boolean"
	}
	return "a number"
}

// strictEvents decodes a produce body that fastEvents did not take. go-json
// is several times faster than encoding/json; any body it refuses is
// re-read by encoding/json for the error message.
func strictEvents(body []byte, events **[]eventIn) error {
	var req struct {
		Events *[]eventIn `json:"events"`
	}
	dec := gojson.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&req); err != nil || dec.More() {
		var std struct {
			Events *[]eventIn `json:"events"`
		}
		if err := fabricerr.DecodeJSON(body, &std); err != nil {
			return explainEvents(body, err)
		}
		req = std
	}
	*events = req.Events
	return nil
}
