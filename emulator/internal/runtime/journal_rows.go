package runtime

import (
	"bytes"

	"github.com/fabrictest/fabrictest/emulator/rows"
	gojson "github.com/goccy/go-json"
	"github.com/twmb/franz-go/pkg/kgo"
)

// journalRow is how an outRow is journalled. A row that is its record's
// value decoded (rows.FromValue) leaves the row out: replay decodes the
// value again, which gives the same row, so the journal holds each event's
// bytes once instead of its bytes and its row. Journals written with the
// row keep working: a row that is there is taken as it is.
type journalRow struct {
	Row       *rows.Row          `json:"row,omitempty"`
	Key       []byte             `json:"key,omitempty"`
	Value     []byte             `json:"value,omitempty"`
	Partition int32              `json:"partition"`
	Offset    int64              `json:"offset"`
	Headers   []kgo.RecordHeader `json:"headers,omitempty"`
}

// toJournal is r as journalled.
func toJournal(r outRow) journalRow {
	j := journalRow{Key: r.Key, Value: r.Value, Partition: r.Partition, Offset: r.Offset, Headers: r.Headers}
	if !r.fromValue || len(r.Value) == 0 {
		row := r.row()
		j.Row = &row
	}
	return j
}

// fromJournal is the outRow a journalled row stands for.
func fromJournal(j journalRow) outRow {
	r := outRow{Key: j.Key, Value: j.Value, Partition: j.Partition, Offset: j.Offset, Headers: j.Headers}
	if j.Row != nil {
		r.Row = *j.Row
	} else {
		r.fromValue = true
	}
	return r
}

// decodeRowJSON decodes a journalled row, numbers keeping their text.
func decodeRowJSON(raw []byte, row *rows.Row) error {
	dec := gojson.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	return dec.Decode(row)
}

// marshalJournalRows encodes rows in the JSON form of a journal's pending
// batch, which a split batch and the batching buffer keep (a whole batch
// is journalled in the binary form, appendBinaryRows).
func marshalJournalRows(out []outRow) ([]byte, error) {
	js := make([]journalRow, len(out))
	for i, r := range out {
		js[i] = toJournal(r)
	}
	return gojson.Marshal(js)
}

// decodeJournalRows decodes rows journalled by marshalJournalRows (or by
// earlier versions, which always wrote the row), numbers keeping their text.
func decodeJournalRows(raw []byte) ([]outRow, error) {
	var js []journalRow
	dec := gojson.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber() // numbers keep their text, so a long stays a long
	if err := dec.Decode(&js); err != nil {
		return nil, err
	}
	out := make([]outRow, len(js))
	for i, j := range js {
		out[i] = fromJournal(j)
	}
	return out, nil
}
