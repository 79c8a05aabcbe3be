package delta

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/parquet-go/parquet-go"
)

// Snapshot is the content of a Delta table at its latest version, as
// ReadTable found it.
type Snapshot struct {
	// Version is the latest version of the table.
	Version int64
	// TableID is the metaData id of the table.
	TableID string
	// Schema is the table's schema at Version.
	Schema Schema
	// Rows holds every row of the table, each with every column of Schema
	// (nil for null), ordered by the version that added them, then by the
	// order of the add actions in that commit, then by their order in the
	// data file: the order in which they were appended. Values are string,
	// int64 (long), float64 (double), bool, time.Time in UTC (timestamp),
	// map[string]any with every member (struct) and []any (array).
	Rows []map[string]any
	// Commits describes every version, 0 to Version.
	Commits []Commit
	// Files lists the data files of the table at Version, in Rows order.
	Files []File
	// Txns maps each app id to the latest version its txn actions recorded.
	Txns map[string]int64
}

// Commit describes one version of a table.
type Commit struct {
	Version             int64
	Timestamp           time.Time // commitInfo.timestamp
	Operation           string    // commitInfo.operation, e.g. "WRITE"
	OperationParameters map[string]any
	EngineInfo          string
	AddedFiles          int
	AddedRows           int64 // the numRecords of the files it added
	Txns                []Txn
	SchemaChanged       bool // the commit has a metaData action
}

// File is one data file of a table.
type File struct {
	Path       string // relative to the table root
	Version    int64  // the version that added it
	Size       int64  // bytes, as the add action records and the file has
	NumRecords int64  // rows in the file
	Stats      string // the add action's stats JSON
}

// ReadTable reads the Delta table whose root is dir: it replays the whole
// log (versions 0 to the latest, JSON commits; tables with checkpoints only
// are not supported), then reads every live data file with parquet-go. It
// checks what a careful reader relies on: contiguous versions, each add's
// size against the file, and each file's rows against its stats'
// numRecords. It reads tables written by this package (unpartitioned,
// standard three-level lists); it is meant for tests and assertions.
func ReadTable(dir string) (*Snapshot, error) {
	snap, err := readLog(dir)
	if err != nil {
		return nil, fmt.Errorf("read delta table %s: %w", dir, err)
	}
	for i := range snap.Files {
		f := &snap.Files[i]
		rs, err := readDataFile(filepath.Join(dir, filepath.FromSlash(f.Path)), f.Size, snap.Schema)
		if err != nil {
			return nil, fmt.Errorf("read delta table %s: file %s: %w", dir, f.Path, err)
		}
		if f.NumRecords >= 0 && int64(len(rs)) != f.NumRecords {
			return nil, fmt.Errorf("read delta table %s: file %s has %d rows, its stats say %d",
				dir, f.Path, len(rs), f.NumRecords)
		}
		if f.NumRecords < 0 {
			f.NumRecords = int64(len(rs))
			snap.Commits[f.Version].AddedRows += f.NumRecords
		}
		snap.Rows = append(snap.Rows, rs...)
	}
	return snap, nil
}

// readLog replays the log into a snapshot without rows.
func readLog(dir string) (*Snapshot, error) {
	versions, _, err := listLog(dir)
	if err != nil {
		return nil, err
	}
	if len(versions) == 0 {
		return nil, fmt.Errorf("no commits in %s: %w", logDirName, os.ErrNotExist)
	}
	rp := newReplay()
	for i, v := range versions {
		if v != int64(i) {
			return nil, fmt.Errorf("log versions are not contiguous from 0: missing version %d", i)
		}
		acts, err := readCommit(dir, v)
		if err != nil {
			return nil, fmt.Errorf("read version %d: %w", v, err)
		}
		if err := rp.commit(v, acts); err != nil {
			return nil, err
		}
	}
	return rp.finish(), nil
}

// replay builds a snapshot commit by commit.
type replay struct {
	snap  *Snapshot
	live  map[string]int // path → index in files
	files []File
}

func newReplay() *replay {
	return &replay{snap: &Snapshot{Txns: map[string]int64{}}, live: map[string]int{}}
}

// commit applies the actions of version v.
func (rp *replay) commit(v int64, acts []action) error {
	c := Commit{Version: v}
	for _, a := range acts {
		if err := rp.action(v, a, &c); err != nil {
			return err
		}
	}
	if v == 0 && !c.SchemaChanged {
		return fmt.Errorf("version 0 has no metaData action")
	}
	rp.snap.Commits = append(rp.snap.Commits, c)
	rp.snap.Version = v
	return nil
}

// action applies one action of version v, described into c.
func (rp *replay) action(v int64, a action, c *Commit) error {
	snap := rp.snap
	switch {
	case a.CommitInfo != nil:
		c.Timestamp = time.UnixMilli(a.CommitInfo.Timestamp).UTC()
		c.Operation = a.CommitInfo.Operation
		c.OperationParameters = a.CommitInfo.OperationParameters
		c.EngineInfo = a.CommitInfo.EngineInfo
	case a.Protocol != nil:
		if a.Protocol.MinReaderVersion > 1 {
			return fmt.Errorf("version %d: reader version %d is not supported", v, a.Protocol.MinReaderVersion)
		}
	case a.MetaData != nil:
		var s Schema
		if err := json.Unmarshal([]byte(a.MetaData.SchemaString), &s); err != nil {
			return fmt.Errorf("version %d: parse schemaString: %w", v, err)
		}
		if len(a.MetaData.PartitionColumns) > 0 {
			return fmt.Errorf("version %d: partitioned tables are not supported", v)
		}
		snap.Schema, snap.TableID = s, a.MetaData.ID
		c.SchemaChanged = true
	case a.Txn != nil:
		snap.Txns[a.Txn.AppID] = a.Txn.Version
		c.Txns = append(c.Txns, Txn{AppID: a.Txn.AppID, Version: a.Txn.Version})
	case a.Add != nil:
		n, err := numRecords(a.Add.Stats)
		if err != nil {
			return fmt.Errorf("version %d: add %s: %w", v, a.Add.Path, err)
		}
		if n > 0 {
			c.AddedRows += n
		}
		c.AddedFiles++
		rp.live[a.Add.Path] = len(rp.files)
		rp.files = append(rp.files, File{Path: a.Add.Path, Version: v, Size: a.Add.Size, NumRecords: n, Stats: a.Add.Stats})
	case a.Remove != nil:
		if i, ok := rp.live[a.Remove.Path]; ok {
			rp.files[i].Path = ""
			delete(rp.live, a.Remove.Path)
		}
	}
	return nil
}

// finish returns the snapshot with its live files.
func (rp *replay) finish() *Snapshot {
	for _, f := range rp.files {
		if f.Path != "" {
			rp.snap.Files = append(rp.snap.Files, f)
		}
	}
	return rp.snap
}

// numRecords returns the numRecords of an add's stats, -1 without stats.
func numRecords(stats string) (int64, error) {
	if stats == "" {
		return -1, nil
	}
	var s struct {
		NumRecords *int64 `json:"numRecords"`
	}
	if err := json.Unmarshal([]byte(stats), &s); err != nil {
		return 0, fmt.Errorf("parse stats: %w", err)
	}
	if s.NumRecords == nil {
		return -1, nil
	}
	return *s.NumRecords, nil
}

// step is one level of the path from a row to a leaf column.
type step struct {
	name string // member name; "" for an array element
	kind kind
	def  int // definition level of a non-null value
	rep  int // arrays: repetition level of the list
	typ  string
}

// leafPaths maps each Parquet leaf path of a schema ("a\x00list\x00element")
// to the steps that lead to it.
func leafPaths(s Schema) map[string][]step {
	out := map[string][]step{}
	var walk func(t DataType, name string, path []string, steps []step, def, rep int)
	walk = func(t DataType, name string, path []string, steps []step, def, rep int) {
		st := step{name: name, kind: kindOf(t.Name), def: def, typ: t.Name}
		switch st.kind {
		case kStruct:
			steps = append(steps[:len(steps):len(steps)], st)
			for _, f := range t.Fields {
				walk(f.Type, f.Name, append(path[:len(path):len(path)], f.Name), steps, def+1, rep)
			}
		case kArray:
			st.rep = rep + 1
			steps = append(steps[:len(steps):len(steps)], st)
			walk(*t.Element, "", append(path[:len(path):len(path)], "list", "element"), steps, def+2, rep+1)
		default:
			out[strings.Join(path, "\x00")] = append(steps[:len(steps):len(steps)], st)
		}
	}
	for _, f := range s.Fields {
		walk(f.Type, f.Name, []string{f.Name}, nil, 1, 0)
	}
	return out
}

// slot is where a value goes: a member of a map or an element of a list.
type slot struct {
	m   map[string]any
	key string
	l   *[]any
	i   int
}

func (s slot) get() any {
	if s.m != nil {
		return s.m[s.key]
	}
	return (*s.l)[s.i]
}

func (s slot) set(v any) {
	if s.m != nil {
		s.m[s.key] = v
		return
	}
	(*s.l)[s.i] = v
}

// readDataFile reads every row of a Parquet data file as maps shaped by the
// table schema.
func readDataFile(path string, wantSize int64, schema Schema) ([]map[string]any, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if info.Size() != wantSize {
		return nil, fmt.Errorf("size is %d bytes, the add action says %d", info.Size(), wantSize)
	}
	pf, err := parquet.OpenFile(f, info.Size())
	if err != nil {
		return nil, fmt.Errorf("open parquet: %w", err)
	}
	paths := leafPaths(schema)
	cols := pf.Schema().Columns()
	leaves := make([][]step, len(cols))
	for i, c := range cols {
		leaves[i] = paths[strings.Join(c, "\x00")] // nil: not in the table schema
	}
	maxRep := 0
	for _, steps := range leaves {
		for _, st := range steps {
			maxRep = max(maxRep, st.rep)
		}
	}
	var out []map[string]any
	idx := make([]int, maxRep+1)
	buf := make([]parquet.Row, 128)
	for _, rg := range pf.RowGroups() {
		rr := rg.Rows()
		for {
			n, err := rr.ReadRows(buf)
			for _, prow := range buf[:n] {
				row := map[string]any{}
				for _, v := range prow {
					if steps := leaves[v.Column()]; steps != nil {
						if err := place(row, steps, v, idx); err != nil {
							_ = rr.Close()
							return nil, err
						}
					}
				}
				out = append(out, finishRow(row, schema))
			}
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				_ = rr.Close()
				return nil, fmt.Errorf("read rows: %w", err)
			}
		}
		if err := rr.Close(); err != nil {
			return nil, fmt.Errorf("close rows: %w", err)
		}
	}
	return out, nil
}

// place puts one leaf value into the row by its levels (Dremel record
// assembly): idx holds, per repetition level, the element index of the
// current list.
func place(row map[string]any, steps []step, v parquet.Value, idx []int) error {
	r, d := v.RepetitionLevel(), v.DefinitionLevel()
	cur := slot{m: row, key: steps[0].name}
	for i, st := range steps {
		if d < st.def {
			if cur.m != nil {
				if _, ok := cur.m[cur.key]; ok {
					return nil
				}
			}
			cur.set(nil)
			return nil
		}
		switch st.kind {
		case kStruct:
			m, ok := cur.get().(map[string]any)
			if !ok {
				m = map[string]any{}
				cur.set(m)
			}
			cur = slot{m: m, key: steps[i+1].name}
		case kArray:
			lp, ok := cur.get().(*[]any)
			if !ok {
				lp = &[]any{}
				cur.set(lp)
			}
			if d == st.def {
				return nil // a list with no elements
			}
			switch {
			case r < st.rep:
				idx[st.rep] = 0
			case r == st.rep:
				idx[st.rep]++
			}
			j := idx[st.rep]
			for len(*lp) <= j {
				*lp = append(*lp, nil)
			}
			cur = slot{l: lp, i: j}
		default:
			val, err := leafValue(st, v)
			if err != nil {
				return err
			}
			cur.set(val)
			return nil
		}
	}
	return nil
}

// leafValue converts a Parquet value of a primitive column.
func leafValue(st step, v parquet.Value) (any, error) {
	switch k := v.Kind(); {
	case st.kind == kString && k == parquet.ByteArray:
		return string(v.ByteArray()), nil
	case st.kind == kLong && k == parquet.Int64:
		return v.Int64(), nil
	case st.kind == kLong && k == parquet.Int32:
		return int64(v.Int32()), nil
	case st.kind == kDouble && k == parquet.Double:
		return v.Double(), nil
	case st.kind == kBoolean && k == parquet.Boolean:
		return v.Boolean(), nil
	case st.kind == kTimestamp && k == parquet.Int64:
		return time.UnixMicro(v.Int64()).UTC(), nil
	default:
		return nil, fmt.Errorf("column of Delta type %s holds a Parquet %s value", st.typ, k)
	}
}

// finishRow gives the row every column of the schema, turns lists into
// []any and gives every struct every member.
func finishRow(row map[string]any, s Schema) map[string]any {
	for _, f := range s.Fields {
		row[f.Name] = finishValue(row[f.Name], f.Type)
	}
	return row
}

func finishValue(v any, t DataType) any {
	switch t.Name {
	case TypeStruct:
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		for _, f := range t.Fields {
			m[f.Name] = finishValue(m[f.Name], f.Type)
		}
		return m
	case TypeArray:
		lp, ok := v.(*[]any)
		if !ok {
			return nil
		}
		l := *lp
		for i := range l {
			l[i] = finishValue(l[i], *t.Element)
		}
		return l
	default:
		return v
	}
}
