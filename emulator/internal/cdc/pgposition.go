package cdc

import (
	"encoding/json"
	"fmt"

	"github.com/jackc/pglogrepl"
)

// pgPosition is where a PostgreSQL source is: the slot it reads, the end
// LSN of the last transaction whose events were delivered, and whether the
// initial snapshot was delivered.
type pgPosition struct {
	Slot         string `json:"slot"`
	LSN          string `json:"lsn"`
	SnapshotDone bool   `json:"snapshotDone"`
}

// decodePGPosition reads a saved position ("" is none).
func decodePGPosition(s string) (*pgPosition, pglogrepl.LSN, error) {
	if s == "" {
		return nil, 0, nil
	}
	var p pgPosition
	if err := json.Unmarshal([]byte(s), &p); err != nil {
		return nil, 0, fmt.Errorf("read saved position %q: %w", s, err)
	}
	lsn, err := pglogrepl.ParseLSN(p.LSN)
	if err != nil {
		return nil, 0, fmt.Errorf("read saved position %q: %w", s, err)
	}
	return &p, lsn, nil
}

func (p pgPosition) encode() string { b, _ := json.Marshal(p); return string(b) }
