package delta

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/parquet-go/parquet-go"
)

// checkpointInterval is how many commits apart checkpoints are written:
// the protocol's default for delta.checkpointInterval.
const checkpointInterval = 10

// lastCheckpointName is the file naming the latest checkpoint.
const lastCheckpointName = "_last_checkpoint"

// checkpointPath is the classic single-file checkpoint of a version.
func checkpointPath(dir string, version int64) string {
	return filepath.Join(dir, logDirName, fmt.Sprintf("%020d.checkpoint.parquet", version))
}

// checkpointRef is what _last_checkpoint says: the latest checkpoint's
// version (-1 when the log has none) and, when its writer recorded them,
// its action and add counts.
type checkpointRef struct {
	Version     int64  `json:"version"`
	Size        int64  `json:"size"`
	NumAddFiles *int64 `json:"numOfAddFiles"`
}

// readLastCheckpoint reads _last_checkpoint; Version is -1 without one.
func readLastCheckpoint(dir string) (checkpointRef, error) {
	ref := checkpointRef{Version: -1}
	data, err := os.ReadFile(filepath.Join(dir, logDirName, lastCheckpointName))
	if errors.Is(err, fs.ErrNotExist) {
		return ref, nil
	}
	if err != nil {
		return ref, fmt.Errorf("read %s: %w", lastCheckpointName, err)
	}
	if err := json.Unmarshal(data, &ref); err != nil {
		return checkpointRef{Version: -1}, fmt.Errorf("parse %s: %w", lastCheckpointName, err)
	}
	return ref, nil
}

// readCheckpoint reads the checkpoint of version into a state.
func readCheckpoint(dir string, version int64) (tableState, error) {
	st, _, _, err := readCheckpointRows(dir, version, -1)
	return st, err
}

// readCheckpointHead reads only the first rows of a checkpoint, as many
// as it has actions other than add (ref's size minus its add count): this
// package writes protocol, metaData and txns first, so when none of those
// rows is an add they are the whole state but the files, which stay in the
// checkpoint (baseCP) until a new checkpoint needs them. ok is false when
// the head cannot be read that way (a checkpoint ordered otherwise, or a
// _last_checkpoint without counts). When the head is the checkpoint's
// first row group, as this package writes it, the next checkpoint can copy
// the others (baseCopyable).
func readCheckpointHead(dir string, ref checkpointRef) (st tableState, ok bool, err error) {
	if ref.NumAddFiles == nil || ref.Size-*ref.NumAddFiles < 2 {
		return st, false, nil
	}
	head := ref.Size - *ref.NumAddFiles
	st, sawAdd, rg0, err := readCheckpointRows(dir, ref.Version, head)
	if err != nil || sawAdd {
		return st, false, err
	}
	st.baseCP, st.baseCopyable = ref.Version, rg0 == head
	return st, true, nil
}

// readCheckpointRows reads the first limit rows of the checkpoint of
// version (all of them when limit < 0) into a state, and reports whether
// an add was among them and how many rows its first row group has.
func readCheckpointRows(dir string, version, limit int64) (st tableState, sawAdd bool, rg0 int64, err error) {
	st = newTableState()
	f, err := os.Open(checkpointPath(dir, version))
	if err != nil {
		return st, false, 0, fmt.Errorf("open checkpoint %d: %w", version, err)
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return st, false, 0, fmt.Errorf("open checkpoint %d: %w", version, err)
	}
	pf, err := parquet.OpenFile(f, info.Size(), parquet.SkipPageIndex(true), parquet.SkipBloomFilters(true))
	if err != nil {
		return st, false, 0, fmt.Errorf("open checkpoint %d: %w", version, err)
	}
	read := int64(0)
	if rgs := pf.RowGroups(); len(rgs) > 0 {
		rg0 = rgs[0].NumRows()
	}
	for _, rg := range pf.RowGroups() {
		if limit >= 0 && read >= limit {
			break
		}
		n, saw, err := st.readRowGroup(rg, limit-read, limit >= 0)
		read, sawAdd = read+n, sawAdd || saw
		if err != nil {
			return st, sawAdd, rg0, fmt.Errorf("read checkpoint %d: %w", version, err)
		}
	}
	if st.protocol == nil || st.meta == nil {
		return st, sawAdd, rg0, fmt.Errorf("checkpoint %d has no protocol or metaData", version)
	}
	st.version = version
	return st, sawAdd, rg0, nil
}

// readRowGroup applies the rows of one row group of a checkpoint, at most
// limit of them when limited; it returns how many it read and whether an
// add was among them.
func (s *tableState) readRowGroup(rg parquet.RowGroup, limit int64, limited bool) (n int64, sawAdd bool, err error) {
	defer func() { // parquet-go panics on a schema it cannot convert
		if p := recover(); p != nil {
			err = fmt.Errorf("checkpoint schema: %v", p)
		}
	}()
	r := parquet.NewGenericRowGroupReader[cpRow](rg)
	defer r.Close()
	buf := make([]cpRow, 256)
	for !limited || n < limit {
		want := int64(len(buf))
		if limited {
			want = min(want, limit-n)
		}
		got, rerr := r.Read(buf[:want])
		n += int64(got)
		for i := range buf[:got] {
			sawAdd = sawAdd || buf[i].Add != nil
			if err := s.applyCheckpointRow(&buf[i]); err != nil {
				return n, sawAdd, err
			}
			buf[i] = cpRow{}
		}
		if errors.Is(rerr, io.EOF) {
			break
		}
		if rerr != nil {
			return n, sawAdd, rerr
		}
	}
	return n, sawAdd, nil
}

// completeFiles loads the add actions of the checkpoint the state started
// from, when it started from one's head, so that files is complete.
func (s *tableState) completeFiles(dir string) error {
	if s.baseCP < 0 {
		return nil
	}
	base, err := readCheckpoint(dir, s.baseCP)
	if err != nil {
		return err
	}
	files := make(map[string]*addAction, len(base.files)+len(s.files))
	order := make([]string, 0, len(base.files)+len(s.order))
	for _, a := range base.liveAdds() {
		if s.files[a.Path] == nil && !s.baseRemoved[a.Path] {
			files[a.Path] = a
			order = append(order, a.Path)
		}
	}
	for _, a := range s.liveAdds() {
		files[a.Path] = a
		order = append(order, a.Path)
	}
	s.files, s.order, s.baseCP, s.baseRemoved, s.baseCopyable = files, order, -1, nil, false
	return nil
}

// applyCheckpointRow adds one checkpoint action to the state.
func (s *tableState) applyCheckpointRow(r *cpRow) error {
	var a action
	switch {
	case r.Protocol != nil:
		a.Protocol = &protocolAction{MinReaderVersion: int(r.Protocol.MinReaderVersion),
			MinWriterVersion: int(r.Protocol.MinWriterVersion)}
	case r.MetaData != nil:
		m := r.MetaData
		m.PartitionColumns = orEmpty(m.PartitionColumns)
		m.Configuration = orEmptyMap(m.Configuration)
		m.Format.Options = orEmptyMap(m.Format.Options)
		a.MetaData = &metaDataAction{ID: m.ID, Format: formatSpec{Provider: m.Format.Provider, Options: m.Format.Options},
			SchemaString: m.SchemaString, PartitionColumns: m.PartitionColumns,
			Configuration: m.Configuration, CreatedTime: m.CreatedTime}
	case r.Txn != nil:
		a.Txn = &txnAction{AppID: r.Txn.AppID, Version: r.Txn.Version}
	case r.Add != nil:
		c := r.Add
		a.Add = &addAction{Path: c.Path, PartitionValues: orEmptyMap(c.PartitionValues), Size: c.Size,
			ModificationTime: c.ModificationTime, DataChange: c.DataChange}
		if c.Stats != nil {
			a.Add.Stats = *c.Stats
		}
	default:
		return nil // remove tombstones and unknown actions change no live state
	}
	v := s.version
	err := s.apply(v, []action{a})
	return err
}

func orEmpty(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func orEmptyMap(m map[string]string) map[string]string {
	if m == nil {
		return map[string]string{}
	}
	return m
}

// maybeCheckpoint writes the checkpoint of a version the interval divides.
// A checkpoint is an optimisation: the commit stands without it, so a
// failure only leaves readers replaying more JSON commits.
func (t *Table) maybeCheckpoint(version int64) {
	if version <= 0 || version%checkpointInterval != 0 {
		return
	}
	t.stMu.Lock()
	defer t.stMu.Unlock()
	if t.st.version != version {
		return
	}
	_ = writeCheckpoint(t.dir, &t.st, t.o.fsync)
}

// loadLatestCheckpoint starts an empty state from the checkpoint that
// _last_checkpoint names, when there is one, reading only its head when it
// can; a missing or unreadable checkpoint leaves the state empty, to be
// replayed from version 0.
func (t *Table) loadLatestCheckpoint() error {
	ref, err := readLastCheckpoint(t.dir)
	if err != nil || ref.Version < 0 {
		return err
	}
	st, ok, err := readCheckpointHead(t.dir, ref)
	if err == nil && !ok {
		st, err = readCheckpoint(t.dir, ref.Version)
	}
	if err != nil {
		if _, err0 := os.Stat(commitPath(t.dir, 0)); err0 == nil {
			return nil // replay the JSON commits instead
		}
		return err
	}
	t.stMu.Lock()
	t.st = st
	t.stMu.Unlock()
	return nil
}
