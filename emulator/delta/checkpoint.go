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

// checkpointRows renders a state as checkpoint rows: protocol, metaData,
// one txn per application, one add per live file.
func checkpointRows(st *tableState) []cpRow {
	adds := st.liveAdds()
	out := make([]cpRow, 0, 2+len(st.txns)+len(adds))
	out = append(out, cpRow{Protocol: &cpProtocol{
		MinReaderVersion: int32(st.protocol.MinReaderVersion),
		MinWriterVersion: int32(st.protocol.MinWriterVersion),
	}})
	m := st.meta
	out = append(out, cpRow{MetaData: &cpMetaData{
		ID:               m.ID,
		Format:           cpFormat{Provider: m.Format.Provider, Options: m.Format.Options},
		SchemaString:     m.SchemaString,
		PartitionColumns: m.PartitionColumns,
		Configuration:    m.Configuration,
		CreatedTime:      m.CreatedTime,
	}})
	for app, v := range st.txns {
		out = append(out, cpRow{Txn: &cpTxn{AppID: app, Version: v}})
	}
	for _, a := range adds {
		c := &cpAdd{Path: a.Path, PartitionValues: a.PartitionValues, Size: a.Size,
			ModificationTime: a.ModificationTime, DataChange: a.DataChange}
		if a.Stats != "" {
			c.Stats = ptr(a.Stats)
		}
		out = append(out, cpRow{Add: c})
	}
	return out
}

// writeCheckpoint writes the checkpoint of st's version and then points
// _last_checkpoint at it. Both go through a temporary file renamed into
// place, so a reader never sees a partial file.
func writeCheckpoint(dir string, st *tableState, fsync bool) error {
	if st.protocol == nil || st.meta == nil {
		return fmt.Errorf("write checkpoint: state has no protocol or metaData")
	}
	rs := checkpointRows(st)
	final := checkpointPath(dir, st.version)
	size, err := writeAtomic(final, fsync, func(w io.Writer) error {
		pw := parquet.NewGenericWriter[cpRow](w, parquet.Compression(&parquet.Snappy))
		if _, err := pw.Write(rs); err != nil {
			return fmt.Errorf("write checkpoint rows: %w", err)
		}
		return pw.Close()
	})
	if err != nil {
		return fmt.Errorf("write checkpoint %d: %w", st.version, err)
	}
	lc, err := json.Marshal(lastCheckpoint{Version: st.version, Size: int64(len(rs)),
		SizeInBytes: size, NumAddFiles: int64(len(st.files))})
	if err != nil {
		return fmt.Errorf("encode %s: %w", lastCheckpointName, err)
	}
	_, err = writeAtomic(filepath.Join(dir, logDirName, lastCheckpointName), fsync, func(w io.Writer) error {
		_, err := w.Write(lc)
		return err
	})
	if err != nil {
		return fmt.Errorf("write %s: %w", lastCheckpointName, err)
	}
	return nil
}

// writeAtomic writes a file through a temporary file in the same directory
// renamed over name; it returns the size written.
func writeAtomic(name string, fsync bool, write func(io.Writer) error) (int64, error) {
	f, err := os.CreateTemp(filepath.Dir(name), ".checkpoint-*.tmp")
	if err != nil {
		return 0, err
	}
	tmp := f.Name()
	fail := func(err error) (int64, error) {
		_ = f.Close()
		_ = os.Remove(tmp)
		return 0, err
	}
	if err := write(f); err != nil {
		return fail(err)
	}
	if fsync {
		if err := f.Sync(); err != nil {
			return fail(err)
		}
	}
	info, err := f.Stat()
	if err != nil {
		return fail(err)
	}
	if err := f.Close(); err != nil {
		_ = os.Remove(tmp)
		return 0, err
	}
	if err := os.Rename(tmp, name); err != nil {
		_ = os.Remove(tmp)
		return 0, err
	}
	return info.Size(), nil
}

// readLastCheckpoint returns the version _last_checkpoint names, or -1
// when the log has none.
func readLastCheckpoint(dir string) (int64, error) {
	data, err := os.ReadFile(filepath.Join(dir, logDirName, lastCheckpointName))
	if errors.Is(err, fs.ErrNotExist) {
		return -1, nil
	}
	if err != nil {
		return -1, fmt.Errorf("read %s: %w", lastCheckpointName, err)
	}
	var lc lastCheckpoint
	if err := json.Unmarshal(data, &lc); err != nil {
		return -1, fmt.Errorf("parse %s: %w", lastCheckpointName, err)
	}
	return lc.Version, nil
}

// readCheckpoint reads the checkpoint of version into a state.
func readCheckpoint(dir string, version int64) (tableState, error) {
	st := newTableState()
	f, err := os.Open(checkpointPath(dir, version))
	if err != nil {
		return st, fmt.Errorf("open checkpoint %d: %w", version, err)
	}
	defer f.Close()
	r := parquet.NewGenericReader[cpRow](f)
	defer r.Close()
	buf := make([]cpRow, 256)
	for {
		n, err := r.Read(buf)
		for i := range buf[:n] {
			if aerr := st.applyCheckpointRow(&buf[i]); aerr != nil {
				return st, fmt.Errorf("checkpoint %d: %w", version, aerr)
			}
			buf[i] = cpRow{}
		}
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return st, fmt.Errorf("read checkpoint %d: %w", version, err)
		}
	}
	if st.protocol == nil || st.meta == nil {
		return st, fmt.Errorf("checkpoint %d has no protocol or metaData", version)
	}
	st.version = version
	return st, nil
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
	t.stMu.RLock()
	defer t.stMu.RUnlock()
	if t.st.version != version {
		return
	}
	_ = writeCheckpoint(t.dir, &t.st, t.o.fsync)
}

// loadLatestCheckpoint starts an empty state from the checkpoint that
// _last_checkpoint names, when there is one; a missing or unreadable
// checkpoint leaves the state empty, to be replayed from version 0.
func (t *Table) loadLatestCheckpoint() error {
	v, err := readLastCheckpoint(t.dir)
	if err != nil || v < 0 {
		return err
	}
	st, err := readCheckpoint(t.dir, v)
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
