package delta_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/fabrictest/fabrictest/emulator/delta"
	"github.com/fabrictest/fabrictest/internal/testclients"
)

// The independent reader: every table a test writes is read back by Python
// deltalake (delta-rs) through testdata/deltars_reader.py, one long-running
// process for the whole test binary, and compared with delta.ReadTable and
// with what the test expects.

const installHint = testclients.DeltaInstallHint

var pyReader struct {
	once   sync.Once
	mu     sync.Mutex
	err    error
	cmd    *exec.Cmd
	in     io.WriteCloser
	out    *bufio.Reader
	stderr *lockedBuffer
}

type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func startReader() error {
	py, err := testclients.DeltaPython()
	if err != nil {
		return err
	}
	cmd := exec.Command(py, filepath.Join("testdata", "deltars_reader.py"))
	in, err := cmd.StdinPipe()
	if err != nil {
		return err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	pyReader.stderr = &lockedBuffer{}
	cmd.Stderr = pyReader.stderr
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start %s: %w; %s", py, err, installHint)
	}
	pyReader.cmd, pyReader.in, pyReader.out = cmd, in, bufio.NewReaderSize(out, 1<<20)
	return nil
}

// stopReader ends the helper process (called by TestMain).
func stopReader() {
	if pyReader.cmd != nil {
		_ = pyReader.in.Close()
		done := make(chan struct{})
		go func() { _ = pyReader.cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			_ = pyReader.cmd.Process.Kill()
		}
	}
}

// rsView is what delta-rs sees of a table.
type rsView struct {
	Error    string            `json:"error"`
	Version  int64             `json:"version"`
	Schema   json.RawMessage   `json:"schema"`
	Protocol []int             `json:"protocol"`
	Rows     []map[string]any  `json:"rows"`
	RowsSQL  []map[string]any  `json:"rows_sql"`
	CountSQL int64             `json:"count_sql"`
	Counts   []int64           `json:"counts"`
	Txns     map[string]*int64 `json:"txns"`
	Adds     []map[string]any  `json:"adds"`
	History  []struct {
		Version    int64  `json:"version"`
		Operation  string `json:"operation"`
		EngineInfo string `json:"engineInfo"`
	} `json:"history"`
}

// readWithDeltaRS asks the helper process to read the table at dir.
func readWithDeltaRS(t testing.TB, dir string, apps []string) *rsView {
	t.Helper()
	return readWithDeltaRSOpts(t, map[string]any{"path": dir, "apps": apps})
}

// readWithDeltaRSOpts sends a request with options to the helper process.
func readWithDeltaRSOpts(t testing.TB, req map[string]any) *rsView {
	t.Helper()
	dir := req["path"]
	pyReader.once.Do(func() { pyReader.err = startReader() })
	if pyReader.err != nil {
		t.Fatalf("delta-rs reader: %v", pyReader.err)
	}
	pyReader.mu.Lock()
	defer pyReader.mu.Unlock()
	line0, _ := json.Marshal(req)
	if _, err := pyReader.in.Write(append(line0, '\n')); err != nil {
		t.Fatalf("delta-rs reader: write request: %v; stderr: %s; %s", err, pyReader.stderr, installHint)
	}
	line, err := pyReader.out.ReadBytes('\n')
	if err != nil {
		t.Fatalf("delta-rs reader: read answer: %v; stderr: %s; %s", err, pyReader.stderr, installHint)
	}
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.UseNumber()
	var v rsView
	if err := dec.Decode(&v); err != nil {
		t.Fatalf("delta-rs reader: decode answer: %v", err)
	}
	if v.Error != "" {
		t.Fatalf("delta-rs cannot read %s: %s", dir, v.Error)
	}
	return &v
}

// checkTable reads the table at dir with delta.ReadTable and with delta-rs,
// and fails the test unless both see the same versions, schema, rows,
// per-version row counts, history, txns and add actions, and unless the
// statistics delta-rs parses are exactly those of each file's rows.
func checkTable(t testing.TB, dir string) *delta.Snapshot {
	t.Helper()
	snap, err := delta.ReadTable(dir)
	if err != nil {
		t.Fatalf("ReadTable: %v", err)
	}
	apps := []string{"no-such-app"}
	for app := range snap.Txns {
		apps = append(apps, app)
	}
	rs := readWithDeltaRS(t, dir, apps)

	if rs.Version != snap.Version {
		t.Errorf("delta-rs version %d, ReadTable %d", rs.Version, snap.Version)
	}
	if fmt.Sprint(rs.Protocol) != "[1 2]" {
		t.Errorf("delta-rs protocol %v, want [1 2]", rs.Protocol)
	}
	var schema delta.Schema
	if err := json.Unmarshal(rs.Schema, &schema); err != nil {
		t.Fatalf("parse delta-rs schema: %v", err)
	}
	if schema.String() != snap.Schema.String() {
		t.Errorf("delta-rs schema %s\nReadTable schema %s", schema, snap.Schema)
	}

	want := canonRows(t, snap.Rows, snap.Schema)
	for name, got := range map[string][]map[string]any{"to_pyarrow_table": rs.Rows, "DataFusion SQL": rs.RowsSQL} {
		if g := canonRows(t, got, snap.Schema); !equalStrings(g, want) {
			t.Errorf("delta-rs rows (%s) differ from ReadTable:\n%s", name, diffRows(g, want))
		}
	}
	if rs.CountSQL != int64(len(snap.Rows)) {
		t.Errorf("delta-rs COUNT(*) %d, ReadTable %d rows", rs.CountSQL, len(snap.Rows))
	}

	var total int64
	for v, c := range snap.Commits {
		total += c.AddedRows
		if v < len(rs.Counts) && rs.Counts[v] != total {
			t.Errorf("version %d: delta-rs counts %d rows, ReadTable %d", v, rs.Counts[v], total)
		}
	}
	if len(rs.History) != len(snap.Commits) {
		t.Errorf("delta-rs history has %d commits, ReadTable %d", len(rs.History), len(snap.Commits))
	}
	for _, h := range rs.History {
		if h.Version < 0 || h.Version >= int64(len(snap.Commits)) {
			t.Errorf("delta-rs history has version %d", h.Version)
			continue
		}
		c := snap.Commits[h.Version]
		if h.Operation != c.Operation || h.EngineInfo != c.EngineInfo {
			t.Errorf("version %d: delta-rs history %s/%s, ReadTable %s/%s", h.Version, h.Operation, h.EngineInfo, c.Operation, c.EngineInfo)
		}
	}
	for app, v := range rs.Txns {
		want, ok := snap.Txns[app]
		switch {
		case !ok && v != nil:
			t.Errorf("delta-rs txn version of %q is %d, ReadTable has none", app, *v)
		case ok && (v == nil || *v != want):
			t.Errorf("delta-rs txn version of %q is %v, ReadTable %d", app, v, want)
		}
	}
	checkAdds(t, snap, rs)
	return snap
}

// checkAdds compares delta-rs' add actions with the files, and the stats it
// parsed with stats computed here from each file's rows.
func checkAdds(t testing.TB, snap *delta.Snapshot, rs *rsView) {
	t.Helper()
	if len(rs.Adds) != len(snap.Files) {
		t.Errorf("delta-rs sees %d files, ReadTable %d", len(rs.Adds), len(snap.Files))
	}
	byPath := map[string]map[string]any{}
	for _, a := range rs.Adds {
		byPath[fmt.Sprint(a["path"])] = a
	}
	start := 0
	for _, f := range snap.Files {
		fileRows := snap.Rows[start : start+int(f.NumRecords)]
		start += int(f.NumRecords)
		a, ok := byPath[f.Path]
		if !ok {
			t.Errorf("delta-rs has no add for %s", f.Path)
			continue
		}
		if n := number(a["num_records"]); n != float64(f.NumRecords) {
			t.Errorf("%s: delta-rs num_records %v, file has %d rows", f.Path, a["num_records"], f.NumRecords)
		}
		if n := number(a["size_bytes"]); n != float64(f.Size) {
			t.Errorf("%s: delta-rs size %v, file %d", f.Path, a["size_bytes"], f.Size)
		}
		var raw struct {
			NullCount map[string]any `json:"nullCount"`
		}
		if err := json.Unmarshal([]byte(f.Stats), &raw); err != nil {
			t.Fatalf("%s: parse stats: %v", f.Path, err)
		}
		for _, st := range expectStats(fileRows, snap.Schema) {
			if !hasPath(raw.NullCount, st.path) {
				continue // the column did not exist when the file was written
			}
			key := strings.Join(st.path, ".")
			if got := a["null_count."+key]; number(got) != float64(st.nulls) {
				t.Errorf("%s: delta-rs null_count.%s = %v, the file has %d nulls", f.Path, key, got, st.nulls)
			}
			if st.array {
				continue
			}
			for _, b := range []struct {
				name      string
				got, want any
			}{{"min", a["min."+key], st.min}, {"max", a["max."+key], st.max}} {
				if !sameStat(b.got, b.want) {
					t.Errorf("%s: delta-rs %s.%s = %v (%T), want %v (%T)", f.Path, b.name, key, b.got, b.got, b.want, b.want)
				}
			}
		}
	}
}

func hasPath(m map[string]any, path []string) bool {
	for i, p := range path {
		v, ok := m[p]
		if !ok {
			return false
		}
		if i < len(path)-1 {
			if m, ok = v.(map[string]any); !ok {
				return false
			}
		}
	}
	return true
}

// fieldStats are the expected statistics of one field outside arrays.
type fieldStats struct {
	path     []string
	array    bool
	nulls    int64
	min, max any // nil: no bound expected
}

// expectStats computes, independently of the package, what the stats of a
// file holding rows must say: exact null counts; exact bounds for long and
// double; string bounds (minimum cut to 32 characters, no maximum longer
// than 32); timestamp bounds in milliseconds (minimum truncated, maximum
// rounded up); no bounds for booleans.
func expectStats(rows []map[string]any, s delta.Schema) []fieldStats {
	var out []fieldStats
	var walk func(path []string, t delta.DataType, get func(map[string]any) (any, bool))
	walk = func(path []string, t delta.DataType, get func(map[string]any) (any, bool)) {
		if strings.Contains(strings.Join(path, ""), ".") {
			return // delta-rs flattens names with dots ambiguously
		}
		if t.Name == delta.TypeStruct {
			for _, f := range t.Fields {
				f := f
				walk(append(path[:len(path):len(path)], f.Name), f.Type, func(r map[string]any) (any, bool) {
					v, ok := get(r)
					m, isMap := v.(map[string]any)
					if !ok || !isMap {
						return nil, false
					}
					return m[f.Name], true
				})
			}
			return
		}
		st := fieldStats{path: path, array: t.Name == delta.TypeArray}
		var vals []any
		for _, r := range rows {
			v, _ := get(r)
			if v == nil {
				st.nulls++
				continue
			}
			vals = append(vals, v)
		}
		if len(vals) > 0 {
			switch t.Name {
			case delta.TypeLong:
				lo, hi := int64(math.MaxInt64), int64(math.MinInt64)
				for _, v := range vals {
					lo, hi = min(lo, v.(int64)), max(hi, v.(int64))
				}
				st.min, st.max = lo, hi
			case delta.TypeDouble:
				lo, hi := math.Inf(1), math.Inf(-1)
				for _, v := range vals {
					lo, hi = math.Min(lo, v.(float64)), math.Max(hi, v.(float64))
				}
				st.min, st.max = lo, hi
			case delta.TypeString:
				lo, hi := vals[0].(string), vals[0].(string)
				for _, v := range vals {
					lo, hi = min(lo, v.(string)), max(hi, v.(string))
				}
				if utf8.RuneCountInString(lo) > 32 {
					lo = string([]rune(lo)[:32])
				}
				st.min = lo
				if utf8.RuneCountInString(hi) <= 32 {
					st.max = hi
				}
			case delta.TypeTimestamp:
				lo, hi := vals[0].(time.Time), vals[0].(time.Time)
				for _, v := range vals {
					if v.(time.Time).Before(lo) {
						lo = v.(time.Time)
					}
					if v.(time.Time).After(hi) {
						hi = v.(time.Time)
					}
				}
				up := hi.Truncate(time.Millisecond)
				if !up.Equal(hi) {
					up = up.Add(time.Millisecond)
				}
				st.min = lo.Truncate(time.Millisecond).Format(tsLayout)
				st.max = up.Format(tsLayout)
			}
		}
		out = append(out, st)
	}
	for _, f := range s.Fields {
		f := f
		walk([]string{f.Name}, f.Type, func(r map[string]any) (any, bool) { return r[f.Name], true })
	}
	return out
}

// sameStat compares a bound delta-rs parsed with an expected one.
func sameStat(got, want any) bool {
	switch w := want.(type) {
	case nil:
		return got == nil
	case int64:
		n, ok := got.(json.Number)
		return ok && n.String() == strconv.FormatInt(w, 10)
	case float64:
		n, ok := got.(json.Number)
		if !ok {
			return false
		}
		f, err := n.Float64()
		return err == nil && f == w
	default:
		return got == want
	}
}

func number(v any) float64 {
	n, ok := v.(json.Number)
	if !ok {
		return math.NaN()
	}
	f, err := n.Float64()
	if err != nil {
		return math.NaN()
	}
	return f
}

const tsLayout = "2006-01-02T15:04:05.000000Z"

// canonRows renders rows as sorted JSON texts with values normalised by the
// schema (long as integer, double as float, timestamps as UTC text with
// microseconds), so that readers' rows compare as multisets.
func canonRows(t testing.TB, rows []map[string]any, s delta.Schema) []string {
	t.Helper()
	out := canonList(t, rows, s)
	sort.Strings(out)
	return out
}

// canonList is canonRows in the rows' own order.
func canonList(t testing.TB, rows []map[string]any, s delta.Schema) []string {
	t.Helper()
	out := make([]string, 0, len(rows))
	for _, r := range rows {
		c, err := canon(r, delta.StructOf(s.Fields...))
		if err != nil {
			t.Fatalf("normalise row %v: %v", r, err)
		}
		b, err := json.Marshal(c)
		if err != nil {
			t.Fatalf("encode row: %v", err)
		}
		out = append(out, string(b))
	}
	return out
}

func canon(v any, t delta.DataType) (any, error) {
	if v == nil {
		return nil, nil
	}
	switch t.Name {
	case delta.TypeString:
		if s, ok := v.(string); ok {
			return s, nil
		}
	case delta.TypeLong:
		switch x := v.(type) {
		case int64:
			return x, nil
		case json.Number:
			return x.Int64()
		}
	case delta.TypeDouble:
		switch x := v.(type) {
		case float64:
			return x, nil
		case json.Number:
			return x.Float64()
		}
	case delta.TypeBoolean:
		if b, ok := v.(bool); ok {
			return b, nil
		}
	case delta.TypeTimestamp:
		switch x := v.(type) {
		case time.Time:
			return x.UTC().Format(tsLayout), nil
		case string:
			return x, nil
		}
	case delta.TypeStruct:
		if m, ok := v.(map[string]any); ok {
			out := map[string]any{}
			for _, f := range t.Fields {
				c, err := canon(m[f.Name], f.Type)
				if err != nil {
					return nil, fmt.Errorf("%s: %w", f.Name, err)
				}
				out[f.Name] = c
			}
			return out, nil
		}
	case delta.TypeArray:
		if l, ok := v.([]any); ok {
			out := make([]any, len(l))
			for i, e := range l {
				c, err := canon(e, *t.Element)
				if err != nil {
					return nil, fmt.Errorf("[%d]: %w", i, err)
				}
				out[i] = c
			}
			return out, nil
		}
	}
	return nil, fmt.Errorf("value %v (%T) is not a %s", v, v, t)
}

func equalStrings(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// diffRows shows the first rows that differ.
func diffRows(got, want []string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d rows vs %d\n", len(got), len(want))
	shown := 0
	for i := 0; i < max(len(got), len(want)) && shown < 5; i++ {
		var g, w string
		if i < len(got) {
			g = got[i]
		}
		if i < len(want) {
			w = want[i]
		}
		if g != w {
			fmt.Fprintf(&b, "  got  %s\n  want %s\n", g, w)
			shown++
		}
	}
	return b.String()
}
