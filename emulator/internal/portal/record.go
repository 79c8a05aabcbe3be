package portal

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"strconv"
	"unicode"
	"unicode/utf8"

	"github.com/twmb/franz-go/pkg/kgo"
)

// previewRecord is one record as the preview shows it. Key, header values
// and value are shown safely: see shown.
type previewRecord struct {
	Partition int32    `json:"partition"`
	Offset    int64    `json:"offset"`
	Timestamp string   `json:"timestamp"`
	Key       shown    `json:"key"`
	Headers   []header `json:"headers"`
	Value     shown    `json:"value"`
}

// header is one record header.
type header struct {
	Key   string `json:"key"`
	Value shown  `json:"value"`
}

// shown is bytes made fit to show: Kind "json" (Text pretty-printed),
// "text" (valid UTF-8 without control characters but tab and newline),
// "binary" (Text is the bytes quoted with Go escapes, \x00 and the like,
// and Base64 holds them exactly), or "null". The page sets Text as text,
// never as markup.
type shown struct {
	Kind   string `json:"kind"`
	Text   string `json:"text"`
	Base64 string `json:"base64,omitempty"`
	Bytes  int    `json:"bytes"`
}

// maxShown is the most bytes of one value the preview shows.
const maxShown = 64 << 10

// renderRecord makes rec fit to show.
func renderRecord(rec *kgo.Record) previewRecord {
	out := previewRecord{Partition: rec.Partition, Offset: rec.Offset,
		Timestamp: rec.Timestamp.UTC().Format("2006-01-02T15:04:05.000Z"),
		Key:       show(rec.Key), Value: show(rec.Value), Headers: []header{}}
	for _, h := range rec.Headers {
		out.Headers = append(out.Headers, header{Key: safeText(h.Key), Value: show(h.Value)})
	}
	return out
}

// show classifies b and renders it (the first maxShown bytes of it).
func show(b []byte) shown {
	if b == nil {
		return shown{Kind: "null"}
	}
	s := shown{Bytes: len(b)}
	cut := b
	if len(cut) > maxShown {
		cut = cut[:maxShown]
	}
	var pretty bytes.Buffer
	switch {
	case len(cut) == len(b) && json.Valid(b) && json.Indent(&pretty, b, "", "  ") == nil:
		s.Kind, s.Text = "json", pretty.String()
	case printable(cut):
		s.Kind, s.Text = "text", string(cut)
	default:
		s.Kind, s.Text, s.Base64 = "binary", strconv.Quote(string(cut)), base64.StdEncoding.EncodeToString(cut)
	}
	return s
}

// printable reports whether b is UTF-8 text with no control characters
// but tab, newline and carriage return.
func printable(b []byte) bool {
	if !utf8.Valid(b) {
		return false
	}
	for _, r := range string(b) {
		if unicode.IsControl(r) && r != '\t' && r != '\n' && r != '\r' {
			return false
		}
	}
	return true
}

// safeText is s when printable, else s quoted with Go escapes.
func safeText(s string) string {
	if printable([]byte(s)) {
		return s
	}
	return strconv.Quote(s)
}
