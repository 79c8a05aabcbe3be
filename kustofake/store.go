package kustofake

import (
	"strings"

	"github.com/google/uuid"
)

// Column is a table column: its name and canonical Kusto type.
type Column struct {
	Name string
	Type string
}

// database is one isolated namespace of tables.
type database struct {
	name   string
	id     string
	tables map[string]*table // by exact (case-sensitive) name
}

// table holds its rows in column order; rows written before a column was
// added are shorter than the schema and read as null there. Rows are never
// changed once appended, so a snapshot can be read without the lock.
type table struct {
	name    string
	folder  string
	doc     string
	columns []Column
	rows    [][]any
	tags    map[string]bool // every tag of every extent, e.g. "ingest-by:x"
	extents int
}

func newDatabase(name string) *database {
	return &database{name: name, id: uuid.NewString(), tables: map[string]*table{}}
}

func (t *table) column(name string) int {
	for i, c := range t.columns {
		if c.Name == name {
			return i
		}
	}
	return -1
}

// Snapshot is a copy of a table's schema and rows, in ingestion order, with
// values as stored: string, int64 (long, int), float64, bool, time.Time,
// json.RawMessage (dynamic), string (guid, decimal), time.Duration, or nil.
type Snapshot struct {
	Database string
	Table    string
	Columns  []Column
	Rows     [][]any
	// Extents is the number of ingests that added rows.
	Extents int
}

// Snapshot returns the named table of the named database, and false when
// either does not exist. It is a test helper; it bypasses HTTP and faults.
func (s *Server) Snapshot(db, tableName string) (Snapshot, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	d := s.dbs[strings.ToLower(db)]
	if d == nil {
		return Snapshot{}, false
	}
	t := d.tables[tableName]
	if t == nil {
		return Snapshot{}, false
	}
	snap := Snapshot{Database: d.name, Table: t.name, Columns: append([]Column(nil), t.columns...), Extents: t.extents}
	for _, r := range t.rows {
		row := make([]any, len(t.columns))
		copy(row, r)
		snap.Rows = append(snap.Rows, row)
	}
	return snap, true
}

// Databases lists the names of the databases that exist.
func (s *Server) Databases() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	names := make([]string, 0, len(s.dbs))
	for _, k := range sortedKeys(s.dbs) {
		names = append(names, s.dbs[k].name)
	}
	return names
}

// CreateDatabase creates a database if it does not exist.
func (s *Server) CreateDatabase(name string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.dbs[strings.ToLower(name)] == nil {
		s.dbs[strings.ToLower(name)] = newDatabase(name)
	}
}

// lookupDB finds (or, with auto-create, creates) a database; s.mu is held.
func (s *Server) lookupDB(name string) (*database, *engineError) {
	if name == "" {
		name = DefaultDatabase
	}
	key := strings.ToLower(name)
	if d := s.dbs[key]; d != nil {
		return d, nil
	}
	if !s.autoCreate {
		return nil, entityNotFound("Database", name)
	}
	d := newDatabase(name)
	s.dbs[key] = d
	return d, nil
}
