package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// clockSchema keeps how far the emulator's clock has been advanced, so a
// restart with the same data directory does not take it back.
const clockSchema = `
CREATE TABLE IF NOT EXISTS emulator_clock (
	id        INTEGER PRIMARY KEY CHECK (id = 1),
	offset_ns INTEGER NOT NULL
);
`

// ClockOffset returns how far the emulator's clock was advanced (0 when never).
func (s *Store) ClockOffset(ctx context.Context) (time.Duration, error) {
	var ns int64
	err := s.db.QueryRowContext(ctx, `SELECT offset_ns FROM emulator_clock WHERE id = 1`).Scan(&ns)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, nil
	} else if err != nil {
		return 0, fmt.Errorf("read clock: %w", err)
	}
	return time.Duration(ns), nil
}

// PutClockOffset saves how far the emulator's clock has been advanced.
func (s *Store) PutClockOffset(ctx context.Context, d time.Duration) error {
	_, err := s.db.ExecContext(ctx, `INSERT INTO emulator_clock(id, offset_ns) VALUES(1, ?)
		ON CONFLICT(id) DO UPDATE SET offset_ns = excluded.offset_ns`, int64(d))
	if err != nil {
		return fmt.Errorf("save clock: %w", err)
	}
	return nil
}
