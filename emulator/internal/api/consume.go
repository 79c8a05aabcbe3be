package api

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/fabrictest/fabrictest/emulator/internal/broker"
	"github.com/fabrictest/fabrictest/emulator/internal/eventbody"
	"github.com/fabrictest/fabrictest/emulator/internal/fabricerr"
	"github.com/fabrictest/fabrictest/emulator/internal/store"
)

// Consume limits.
const (
	DefaultMaxRecords = 100_000
	MaxMaxRecords     = 10_000_000
	DefaultTimeout    = 10 * time.Second
	MaxTimeout        = 5 * time.Minute
)

// consume serves GET /v1/eventstreams/{id}/sources/{ds}/events.
//
// Query: startingOffsets and endingOffsets in Spark's forms ("earliest",
// "latest" or {"<topic>": {"<partition>": offset}} with -2 earliest and -1
// latest; the topic key may be left out); maxRecords (default 100000, at most
// 10000000); timeoutMs (default 10000) bounds the wait for offsets not yet
// written. The answer comes as soon as the range is read, with nextOffsets
// in the same JSON form for the following call.
func (a dataHandlers) consume(c *call) error {
	_, s, err := a.plane.Stream(c.r.Context(), c.caller(), c.r.PathValue("id"), c.r.PathValue("ds"), store.RoleViewer)
	if err != nil {
		return err
	}
	if err := a.plane.OpenStream(c.r.Context(), s); errors.Is(err, broker.ErrNoBroker) {
		return kafkaError(err)
	} else if err != nil {
		return err
	}
	q := c.r.URL.Query()
	rng := broker.Range{MaxRecords: DefaultMaxRecords, Timeout: DefaultTimeout}
	if rng.Start, rng.DefaultStart, err = parseOffsets(q.Get("startingOffsets"), s.Topic, "startingOffsets", broker.Earliest); err != nil {
		return err
	}
	if rng.End, rng.DefaultEnd, err = parseOffsets(q.Get("endingOffsets"), s.Topic, "endingOffsets", broker.Latest); err != nil {
		return err
	}
	if v := q.Get("maxRecords"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > MaxMaxRecords {
			return fabricerr.BadParameter("maxRecords", "want an integer from 1 to %d, got %q", MaxMaxRecords, v)
		}
		rng.MaxRecords = n
	}
	if v := q.Get("timeoutMs"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 || time.Duration(n)*time.Millisecond > MaxTimeout {
			return fabricerr.BadParameter("timeoutMs", "want an integer from 0 to %d, got %q", MaxTimeout.Milliseconds(), v)
		}
		rng.Timeout = time.Duration(n) * time.Millisecond
	}
	batch, err := a.plane.ReadStream(c.r.Context(), s, rng)
	var up *broker.UnknownPartitionError
	if errors.As(err, &up) {
		return fabricerr.BadParameter("startingOffsets/endingOffsets", "%v", up)
	} else if err != nil {
		return kafkaError(err)
	}
	defer batch.Release() // once the answer holds the records' bytes
	return eventbody.WriteConsumeAnswer(c.w, s.Topic, batch)
}

// parseOffsets reads Spark's offset forms. It returns explicit per-partition
// offsets and the default for partitions not named.
func parseOffsets(v, topic, field string, def int64) (map[int32]int64, int64, error) {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "":
		return nil, def, nil
	case "earliest":
		if field == "endingOffsets" {
			return nil, 0, fabricerr.BadParameter(field, "\"earliest\" is not allowed for endingOffsets (as in Spark)")
		}
		return nil, broker.Earliest, nil
	case "latest":
		return nil, broker.Latest, nil
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal([]byte(v), &raw); err != nil {
		return nil, 0, fabricerr.BadParameter(field, "want earliest, latest or {\"%s\": {\"0\": offset}}, got %q", topic, v)
	}
	parts := raw
	if inner, ok := raw[topic]; ok && len(raw) == 1 {
		parts = nil
		if err := json.Unmarshal(inner, &parts); err != nil {
			return nil, 0, fabricerr.BadParameter(field, "want {\"%s\": {\"<partition>\": offset}}: %s", topic, fabricerr.DescribeJSON(err))
		}
	}
	out := map[int32]int64{}
	for k, rv := range parts {
		p, err := strconv.ParseInt(k, 10, 32)
		if err != nil || p < 0 {
			return nil, 0, fabricerr.BadParameter(field, "key %q is neither the topic %s nor a partition number", k, topic)
		}
		var o int64
		if err := json.Unmarshal(rv, &o); err != nil || o < -2 {
			return nil, 0, fabricerr.BadParameter(fmt.Sprintf("%s[%d]", field, p), "want an offset, -2 (earliest) or -1 (latest), got %s", rv)
		}
		if o == broker.Earliest && field == "endingOffsets" {
			return nil, 0, fabricerr.BadParameter(fmt.Sprintf("%s[%d]", field, p), "-2 (earliest) is not allowed for endingOffsets")
		}
		out[int32(p)] = o
	}
	// Partitions left out of a JSON form: Spark reads them from earliest
	// (starting) and to latest (ending).
	return out, map[string]int64{"startingOffsets": broker.Earliest, "endingOffsets": broker.Latest}[field], nil
}
