package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
)

// Journal is a destination's delivery record. Before a batch is written to
// the destination it is saved here (Pending, under the next Seq) together
// with the operator state and the offsets it covers; once written, Pending
// is cleared. After a crash, a Pending batch is written again under the same
// Seq, which the destination recognises (a Delta txn, a Kusto ingest tag, a
// job dedupe key), so every batch lands exactly once.
type Journal struct {
	DestinationID string
	Seq           int64
	// Offsets is, per partition, the next offset to read.
	Offsets map[int32]int64
	// State is the operator pipeline's snapshot (nil without stateful operators).
	State []byte
	// Pending is the batch saved under Seq and not yet known to be written.
	Pending []byte
}

// GetJournal returns a destination's journal, or ErrNotFound.
func (s *Store) GetJournal(ctx context.Context, destID string) (Journal, error) {
	j := Journal{DestinationID: destID}
	var offs string
	err := s.db.QueryRowContext(ctx, `SELECT seq, offsets, state, pending FROM journals WHERE destination_id = ?`, destID).
		Scan(&j.Seq, &offs, &j.State, &j.Pending)
	if errors.Is(err, sql.ErrNoRows) {
		return j, ErrNotFound
	} else if err != nil {
		return j, fmt.Errorf("read journal: %w", err)
	}
	if err := json.Unmarshal([]byte(offs), &j.Offsets); err != nil {
		return j, fmt.Errorf("read journal offsets: %w", err)
	}
	return j, nil
}

// PutJournal saves j, replacing what was there.
func (s *Store) PutJournal(ctx context.Context, j Journal) error {
	return putJournal(ctx, s.db, j)
}

// execer is a database or a transaction.
type execer interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
}

// putJournal saves j through db (the store's or a transaction).
func putJournal(ctx context.Context, db execer, j Journal) error {
	offs, _ := json.Marshal(j.Offsets)
	_, err := db.ExecContext(ctx, `INSERT INTO journals(destination_id, seq, offsets, state, pending) VALUES(?,?,?,?,?)
		ON CONFLICT(destination_id) DO UPDATE SET seq = excluded.seq, offsets = excluded.offsets, state = excluded.state, pending = excluded.pending`,
		j.DestinationID, j.Seq, string(offs), j.State, j.Pending)
	if err != nil {
		return fmt.Errorf("save journal: %w", err)
	}
	return nil
}

// ClearPending marks the pending batch of seq as written.
func (s *Store) ClearPending(ctx context.Context, destID string, seq int64) error {
	_, err := s.db.ExecContext(ctx, `UPDATE journals SET pending = NULL WHERE destination_id = ? AND seq = ?`, destID, seq)
	if err != nil {
		return fmt.Errorf("clear journal: %w", err)
	}
	return nil
}

// DeleteJournal forgets a destination's journal (its operators changed).
func (s *Store) DeleteJournal(ctx context.Context, destID string) error {
	_, err := s.db.ExecContext(ctx, `DELETE FROM journals WHERE destination_id = ?`, destID)
	return err
}
