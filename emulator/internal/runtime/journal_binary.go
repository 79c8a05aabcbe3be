package runtime

import (
	"encoding/binary"
	"errors"
	"fmt"

	gojson "github.com/goccy/go-json"
	"github.com/twmb/franz-go/pkg/kgo"
)

// binaryJournal starts a pending batch in the binary form: a byte no JSON
// text starts with, then the form's version.
const (
	binaryJournal        = 0xFB
	binaryJournalVersion = 1
)

// Flags of a row in the binary form.
const (
	rowHasKey   = 1 << iota // the key is not nil
	rowHasValue             // the value is not nil
	rowHasRow               // the row follows as JSON (rows not made from the value)
)

// appendBinaryRows appends rows in the binary form of a pending batch:
// per row its flags, partition, offset, key, value and headers as varints
// and length-prefixed bytes, and, for a row that is not its record's
// value decoded, the row as JSON. A record's bytes are copied as they are:
// no base64, no escaping, which the JSON form cost on every event.
func appendBinaryRows(b []byte, out []outRow) ([]byte, error) {
	b = append(b, binaryJournal, binaryJournalVersion)
	b = binary.AppendUvarint(b, uint64(len(out)))
	for i := range out {
		r := &out[i]
		var flags uint64
		if r.Key != nil {
			flags |= rowHasKey
		}
		if r.Value != nil {
			flags |= rowHasValue
		}
		if !r.fromValue {
			flags |= rowHasRow
		}
		b = binary.AppendUvarint(b, flags)
		b = binary.AppendVarint(b, int64(r.Partition))
		b = binary.AppendVarint(b, r.Offset)
		b = appendBytes(b, r.Key)
		b = appendBytes(b, r.Value)
		b = binary.AppendUvarint(b, uint64(len(r.Headers)))
		for _, h := range r.Headers {
			b = appendBytes(b, []byte(h.Key))
			b = appendBytes(b, h.Value)
		}
		if !r.fromValue {
			row, err := gojson.Marshal(r.Row)
			if err != nil {
				return nil, fmt.Errorf("journal row %d: %w", i, err)
			}
			b = appendBytes(b, row)
		}
	}
	return b, nil
}

func appendBytes(b, data []byte) []byte {
	return append(binary.AppendUvarint(b, uint64(len(data))), data...)
}

// errCorruptJournal is a binary pending batch that does not decode.
var errCorruptJournal = errors.New("corrupt binary journal")

// binaryReader reads the binary form; the first failure sticks.
type binaryReader struct {
	b   []byte
	err error
}

func (r *binaryReader) uvarint() uint64 {
	v, n := binary.Uvarint(r.b)
	if n <= 0 {
		r.fail()
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *binaryReader) varint() int64 {
	v, n := binary.Varint(r.b)
	if n <= 0 {
		r.fail()
		return 0
	}
	r.b = r.b[n:]
	return v
}

// bytes reads length-prefixed bytes (nil when present is false).
func (r *binaryReader) bytes(present bool) []byte {
	n := r.uvarint()
	if r.err != nil || n > uint64(len(r.b)) {
		r.fail()
		return nil
	}
	data := r.b[:n:n]
	r.b = r.b[n:]
	if !present {
		return nil
	}
	return data
}

func (r *binaryReader) fail() {
	if r.err == nil {
		r.err = errCorruptJournal
	}
	r.b = nil
}

// decodeBinaryRows decodes a pending batch written by appendBinaryRows.
func decodeBinaryRows(raw []byte) ([]outRow, error) {
	if len(raw) < 2 || raw[0] != binaryJournal || raw[1] != binaryJournalVersion {
		return nil, fmt.Errorf("read journal: %w: unknown form", errCorruptJournal)
	}
	r := &binaryReader{b: raw[2:]}
	n := r.uvarint()
	if n > uint64(len(r.b)) { // every row takes a byte at least
		return nil, fmt.Errorf("read journal: %w: %d rows in %d bytes", errCorruptJournal, n, len(r.b))
	}
	out := make([]outRow, n)
	for i := range out {
		if err := r.row(&out[i]); err != nil {
			return nil, fmt.Errorf("read journal row %d: %w", i, err)
		}
	}
	if r.err == nil && len(r.b) > 0 {
		r.fail()
	}
	return out, r.err
}

// row reads one row into o.
func (r *binaryReader) row(o *outRow) error {
	flags := r.uvarint()
	o.Partition, o.Offset = int32(r.varint()), r.varint()
	o.Key = r.bytes(flags&rowHasKey != 0)
	o.Value = r.bytes(flags&rowHasValue != 0)
	if h := r.uvarint(); h > 0 && h <= uint64(len(r.b)) {
		o.Headers = make([]kgo.RecordHeader, h)
		for j := range o.Headers {
			o.Headers[j] = kgo.RecordHeader{Key: string(r.bytes(true)), Value: r.bytes(true)}
		}
	} else if h > 0 {
		r.fail()
	}
	o.fromValue = flags&rowHasRow == 0
	if !o.fromValue && r.err == nil {
		row := r.bytes(true)
		if r.err != nil {
			return r.err
		}
		if err := decodeRowJSON(row, &o.Row); err != nil {
			return err
		}
	}
	return r.err
}
