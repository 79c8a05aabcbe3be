package portal

import (
	"context"
	"encoding/json"
	"fmt"
	"github.com/fabrictest/fabrictest/emulator/wire"
	"net/http"
	"net/url"
	"sort"
	"time"

	"github.com/fabrictest/fabrictest/emulator/internal/broker"
	"github.com/twmb/franz-go/pkg/kgo"
)

// Preview settings: how often the stream is read, how many of each
// partition's newest records the preview opens with, and the most records
// one read sends.
const (
	previewPoll    = 250 * time.Millisecond
	previewBacklog = 10
	previewBatch   = 200
	// previewKeepAlive is the longest silence on an idle stream.
	previewKeepAlive = 15 * time.Second
)

// resolved is the Spark resolve route's answer: the stream's topic.
type resolved struct {
	Topic string `json:"topic"`
}

// preview serves GET …/eventstreams/{id}/preview/{ds} as server-sent
// events: first the newest records of each partition, then every record as
// it arrives, each as one "record" event (previewRecord as JSON). The
// principal's right to read the stream is the resolve route's (Viewer and
// up); the records are read from the broker directly, so that a preview
// counts in no data insight.
func (p *Portal) preview(w http.ResponseWriter, r *http.Request) {
	var res resolved
	path := "/v1/eventstreams/" + url.PathEscape(r.PathValue("id")) + "/sources/" + url.PathEscape(r.PathValue("ds"))
	if err := p.get(r, p.principal(r), path, &res); err != nil {
		writeJSONError(w, err)
		return
	}
	if p.cfg.Broker == nil || !p.cfg.Broker.Enabled() {
		writeJSONError(w, newAPIError(http.StatusNotImplemented, wire.KafkaNotConfigured, "the emulator has no Kafka broker: nothing to preview"))
		return
	}
	rc := http.NewResponseController(w)
	_ = rc.SetWriteDeadline(time.Time{}) // a stream outlives the write timeout
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusOK)
	fmt.Fprint(w, "retry: 2000\n\n")
	_ = rc.Flush()
	if err := p.streamRecords(r.Context(), w, rc, res.Topic); err != nil && r.Context().Err() == nil {
		p.cfg.Logger.Warn("portal: preview ended", "topic", res.Topic, "err", err)
		writeEvent(w, "problem", map[string]string{"message": err.Error()})
		_ = rc.Flush()
	}
}

// streamRecords sends the topic's records from previewBacklog before the
// end of each partition on, until ctx ends or a read fails.
func (p *Portal) streamRecords(ctx context.Context, w http.ResponseWriter, rc *http.ResponseController, topic string) error {
	ends, err := p.cfg.Broker.EndOffsets(ctx, topic)
	if err != nil {
		return fmt.Errorf("read end offsets: %w", err)
	}
	next := map[int32]int64{}
	for part, end := range ends {
		next[part] = max(0, end-previewBacklog)
	}
	tick := time.NewTicker(previewPoll)
	defer tick.Stop()
	quiet := time.Now()
	for {
		batch, err := p.cfg.Broker.Consume(ctx, topic, broker.Range{Start: next, DefaultStart: broker.Latest,
			DefaultEnd: broker.Latest, MaxRecords: previewBatch})
		if err != nil {
			return fmt.Errorf("read records: %w", err)
		}
		for _, rec := range inTimeOrder(batch.Records) {
			writeEvent(w, "record", renderRecord(rec))
		}
		for part, o := range batch.Next {
			next[part] = o
		}
		if len(batch.Records) > 0 {
			quiet = time.Now()
		} else if time.Since(quiet) > previewKeepAlive {
			fmt.Fprint(w, ": idle\n\n") // a comment keeps the viewer's stream open
			quiet = time.Now()
		}
		if err := rc.Flush(); err != nil {
			return nil // the viewer left
		}
		if batch.Complete {
			select {
			case <-ctx.Done():
				return nil
			case <-p.done:
				return nil
			case <-tick.C:
			}
		}
	}
}

// writeEvent writes one server-sent event with v as its JSON data. JSON
// holds no raw newline, so one data line carries it whole.
func writeEvent(w http.ResponseWriter, event string, v any) {
	b, _ := json.Marshal(v)
	fmt.Fprintf(w, "event: %s\ndata: %s\n\n", event, b)
}

// inTimeOrder sorts records (which a read groups by partition) by
// timestamp, then partition and offset, so that the page, which puts each
// record it gets on top, shows the newest first across partitions.
func inTimeOrder(recs []*kgo.Record) []*kgo.Record {
	sort.SliceStable(recs, func(i, j int) bool {
		a, b := recs[i], recs[j]
		if !a.Timestamp.Equal(b.Timestamp) {
			return a.Timestamp.Before(b.Timestamp)
		}
		if a.Partition != b.Partition {
			return a.Partition < b.Partition
		}
		return a.Offset < b.Offset
	})
	return recs
}
