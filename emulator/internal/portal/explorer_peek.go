package portal

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/fabrictest/fabrictest/emulator/internal/broker"
	"github.com/fabrictest/fabrictest/emulator/wire"
)

// Peek limits: the records one peek shows by default and at most.
const (
	peekDefault = 50
	peekMax     = 500
)

// peekQuery is what the explorer's peek form asks: a stream, where to
// start (the end, an offset or a time), one partition or all, and how
// many records.
type peekQuery struct {
	Stream    string // the stream's id
	From      string // "end" (the last Limit records), "offset" or "time"
	Offset    int64
	Time      string // as the datetime-local input sends it, read as UTC
	Partition string // "all" or a partition number
	Limit     int
}

// parsePeek reads the peek form from q; a bad field is InvalidInput.
func parsePeek(q url.Values) (peekQuery, error) {
	pq := peekQuery{Stream: q.Get("stream"), From: q.Get("from"), Time: q.Get("time"), Partition: q.Get("partition"), Limit: peekDefault}
	if pq.From == "" {
		pq.From = "end"
	}
	if pq.Partition == "" {
		pq.Partition = "all"
	}
	bad := func(field, format string, args ...any) (peekQuery, error) {
		return pq, newAPIError(http.StatusBadRequest, wire.InvalidInput, field+": "+format, args...)
	}
	if pq.From != "end" && pq.From != "offset" && pq.From != "time" {
		return bad("from", "want end, offset or time, got %q", pq.From)
	}
	if s := q.Get("offset"); s != "" {
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil || n < 0 {
			return bad("offset", "want a whole number from 0, got %q", s)
		}
		pq.Offset = n
	}
	if s := q.Get("limit"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 || n > peekMax {
			return bad("limit", "want 1 to %d, got %q", peekMax, s)
		}
		pq.Limit = n
	}
	if pq.Partition != "all" {
		if n, err := strconv.ParseInt(pq.Partition, 10, 32); err != nil || n < 0 {
			return bad("partition", "want all or a partition number, got %q", pq.Partition)
		}
	}
	if pq.From == "time" {
		if _, err := parseUTC(pq.Time); err != nil {
			return bad("time", "want a UTC time such as 2026-01-02T15:04, got %q", pq.Time)
		}
	}
	return pq, nil
}

// parseUTC reads a datetime-local value (seconds optional) as UTC, or RFC 3339.
func parseUTC(s string) (time.Time, error) {
	var err error
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05", "2006-01-02T15:04"} {
		var at time.Time
		if at, err = time.Parse(layout, s); err == nil {
			return at.UTC(), nil
		}
	}
	return time.Time{}, err
}

// peekTopic reads the records pq asks of topic, straight from the broker
// (a peek counts in no data insight), in time order.
func (p *Portal) peekTopic(ctx context.Context, topic string, pq peekQuery) ([]previewRecord, error) {
	ends, err := p.cfg.Broker.EndOffsets(ctx, topic)
	if err != nil {
		return nil, fmt.Errorf("read end offsets: %w", err)
	}
	starts := map[int32]int64{}
	switch pq.From {
	case "end":
		for part, end := range ends {
			starts[part] = max(0, end-int64(pq.Limit))
		}
	case "offset":
		for part := range ends {
			starts[part] = pq.Offset
		}
	case "time":
		at, _ := parseUTC(pq.Time)
		if starts, err = p.cfg.Broker.OffsetsAfter(ctx, topic, at); err != nil {
			return nil, fmt.Errorf("find offsets at %s: %w", pq.Time, err)
		}
	}
	if pq.Partition != "all" {
		n, _ := strconv.ParseInt(pq.Partition, 10, 32)
		if _, ok := ends[int32(n)]; !ok {
			return nil, newAPIError(http.StatusBadRequest, wire.InvalidInput, "partition: the stream has partitions 0 to %d, not %d", len(ends)-1, n)
		}
		for part, end := range ends {
			if part != int32(n) {
				starts[part] = end // nothing from the others
			}
		}
	}
	for part, end := range ends {
		starts[part] = min(starts[part], end)
	}
	limit := pq.Limit
	if pq.From == "end" {
		limit *= max(1, len(ends)) // each partition's last; the newest Limit of them are kept
	}
	batch, err := p.cfg.Broker.Consume(ctx, topic, broker.Range{Start: starts, DefaultStart: broker.Latest,
		DefaultEnd: broker.Latest, MaxRecords: limit})
	if err != nil {
		return nil, fmt.Errorf("read records: %w", err)
	}
	recs := inTimeOrder(batch.Records)
	if pq.From == "end" && len(recs) > pq.Limit {
		recs = recs[len(recs)-pq.Limit:]
	}
	out := []previewRecord{}
	for _, rec := range recs {
		out = append(out, renderRecord(rec))
	}
	return out, nil
}
