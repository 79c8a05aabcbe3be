package store

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// bufferSchema is the rows a batching destination has accepted and not
// yet committed (issue 15: a Lakehouse destination's minimumRows and
// maximumDurationInSeconds). Rows are appended one per row, never
// rewritten, so a buffer of 100,000 rows costs what its rows cost.
const bufferSchema = `
CREATE TABLE IF NOT EXISTS buffered_rows (
	destination_id TEXT NOT NULL REFERENCES destinations(id) ON DELETE CASCADE,
	n              INTEGER NOT NULL,
	buffered_at    INTEGER NOT NULL,
	row            BLOB NOT NULL,
	PRIMARY KEY(destination_id, n)
) WITHOUT ROWID;
`

// Buffer is a destination's buffered rows in brief.
type Buffer struct {
	Rows int64
	// First is when the oldest buffered row was buffered (zero when none).
	First time.Time
}

// BufferRows appends rows (each one JSON value) to j's destination's
// buffer, buffered at at, and saves j in the same transaction: the offsets
// the rows came from and the rows themselves are durable together, so a
// replay neither loses nor repeats them.
func (s *Store) BufferRows(ctx context.Context, j Journal, rows [][]byte, at time.Time) error {
	return s.tx(ctx, func(tx *sql.Tx) error {
		if err := putJournal(ctx, tx, j); err != nil {
			return err
		}
		var last int64
		if err := tx.QueryRowContext(ctx, `SELECT COALESCE(MAX(n), 0) FROM buffered_rows WHERE destination_id = ?`, j.DestinationID).Scan(&last); err != nil {
			return fmt.Errorf("read buffer: %w", err)
		}
		ins, err := tx.PrepareContext(ctx, `INSERT INTO buffered_rows(destination_id, n, buffered_at, row) VALUES(?,?,?,?)`)
		if err != nil {
			return fmt.Errorf("buffer rows: %w", err)
		}
		defer ins.Close()
		for i, r := range rows {
			if _, err := ins.ExecContext(ctx, j.DestinationID, last+int64(i)+1, at.UnixNano(), r); err != nil {
				return fmt.Errorf("buffer rows: %w", err)
			}
		}
		return nil
	})
}

// BufferOf returns destination destID's buffer in brief.
func (s *Store) BufferOf(ctx context.Context, destID string) (Buffer, error) {
	var b Buffer
	var first sql.NullInt64
	err := s.db.QueryRowContext(ctx, `SELECT COUNT(*), MIN(buffered_at) FROM buffered_rows WHERE destination_id = ?`, destID).Scan(&b.Rows, &first)
	if err != nil {
		return b, fmt.Errorf("read buffer: %w", err)
	}
	if first.Valid {
		b.First = time.Unix(0, first.Int64)
	}
	return b, nil
}

// TakeBuffer moves destID's buffered rows into j's pending batch (a JSON
// array of them, in the order they were buffered) and saves j, in one
// transaction; it returns j as saved and how many rows it took. The rows
// are copied once, when the batch is committed; the journal protocol then
// writes them like any other batch.
func (s *Store) TakeBuffer(ctx context.Context, j Journal) (Journal, int64, error) {
	var n int64
	err := s.tx(ctx, func(tx *sql.Tx) error {
		pending, taken, err := bufferedArray(ctx, tx, j.DestinationID)
		if err != nil {
			return err
		}
		j.Pending, n = pending, taken
		if err := putJournal(ctx, tx, j); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM buffered_rows WHERE destination_id = ?`, j.DestinationID); err != nil {
			return fmt.Errorf("clear buffer: %w", err)
		}
		return nil
	})
	return j, n, err
}

// ErrEmptyBuffer is returned by TakeBuffer when nothing is buffered.
var ErrEmptyBuffer = errors.New("nothing buffered")

// bufferedArray joins destID's buffered rows into one JSON array and
// counts them.
func bufferedArray(ctx context.Context, tx *sql.Tx, destID string) ([]byte, int64, error) {
	rs, err := tx.QueryContext(ctx, `SELECT row FROM buffered_rows WHERE destination_id = ? ORDER BY n`, destID)
	if err != nil {
		return nil, 0, fmt.Errorf("read buffer: %w", err)
	}
	defer rs.Close()
	var buf bytes.Buffer
	buf.WriteByte('[')
	n := 0
	for rs.Next() {
		var r json.RawMessage
		if err := rs.Scan(&r); err != nil {
			return nil, 0, fmt.Errorf("read buffer: %w", err)
		}
		if n > 0 {
			buf.WriteByte(',')
		}
		buf.Write(r)
		n++
	}
	if err := rs.Err(); err != nil {
		return nil, 0, fmt.Errorf("read buffer: %w", err)
	}
	if n == 0 {
		return nil, 0, ErrEmptyBuffer
	}
	buf.WriteByte(']')
	return buf.Bytes(), int64(n), nil
}
