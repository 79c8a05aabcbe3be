package delta

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/format"
)

// A checkpoint this package writes has its head (protocol, metaData,
// txns) as its first row group and the add actions in the row groups
// after it. The next checkpoint copies those row groups' bytes verbatim
// (parquet-go splices them without decoding) and re-encodes only the adds
// since, merged with the trailing row groups no larger than them, as a
// binary counter carries: a table of n files has O(log n) row groups, and
// each add is re-encoded O(log n) times over the life of the table, so a
// checkpoint costs little more at 10,000 files than at 100. A remove of a
// file (which this package never writes) makes the next checkpoint a full
// rewrite.

// checkpointPlan is the content of a checkpoint.
type checkpointPlan struct {
	head   []cpRow            // protocol, metaData, one txn per application
	copied []parquet.RowGroup // add row groups of the previous checkpoint
	fresh  []cpRow            // adds re-encoded into the last row group
	adds   int64
}

// headRows renders the actions of a state other than its adds.
func headRows(st *tableState) []cpRow {
	out := make([]cpRow, 0, 2+len(st.txns))
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
	return out
}

// addRows renders the add actions the state holds in memory.
func addRows(st *tableState) []cpRow {
	adds := st.liveAdds()
	out := make([]cpRow, len(adds))
	for i, a := range adds {
		c := &cpAdd{Path: a.Path, PartitionValues: a.PartitionValues, Size: a.Size,
			ModificationTime: a.ModificationTime, DataChange: a.DataChange}
		if a.Stats != "" {
			c.Stats = ptr(a.Stats)
		}
		out[i] = cpRow{Add: c}
	}
	return out
}

// writeCheckpoint writes the checkpoint of st's version, then points
// _last_checkpoint at it, and starts st's next interval from it. Both files
// go through a temporary file renamed into place, so a reader never sees a
// partial file.
func writeCheckpoint(dir string, st *tableState, fsync bool) error {
	if st.protocol == nil || st.meta == nil {
		return fmt.Errorf("write checkpoint: state has no protocol or metaData")
	}
	plan := checkpointPlan{head: headRows(st)}
	copied := false
	if st.baseCP >= 0 && st.baseCopyable && len(st.baseRemoved) == 0 {
		prev, err := openCheckpoint(dir, st.baseCP)
		if err != nil {
			return fmt.Errorf("write checkpoint %d: %w", st.version, err)
		}
		defer prev.Close()
		if copied = plainStrings(prev.pf); copied {
			if err := plan.extend(prev.pf, addRows(st)); err != nil {
				return fmt.Errorf("write checkpoint %d: %w", st.version, err)
			}
		}
	}
	if !copied {
		if err := st.completeFiles(dir); err != nil {
			return fmt.Errorf("write checkpoint %d: %w", st.version, err)
		}
		plan.fresh = addRows(st)
		plan.adds = int64(len(plan.fresh))
	}
	if err := plan.write(dir, st.version, fsync); err != nil {
		return fmt.Errorf("write checkpoint %d: %w", st.version, err)
	}
	st.files, st.order = map[string]*addAction{}, nil
	st.baseCP, st.baseCopyable, st.baseRemoved = st.version, true, nil
	return nil
}

// extend plans a checkpoint from the previous one's add row groups and the
// adds since: trailing row groups no larger than what is re-encoded after
// them are merged into it.
func (p *checkpointPlan) extend(prev *parquet.File, since []cpRow) error {
	rgs := prev.RowGroups()
	if len(rgs) == 0 {
		return fmt.Errorf("previous checkpoint has no row groups")
	}
	rgs = rgs[1:]
	fresh := since
	for len(rgs) > 0 && rgs[len(rgs)-1].NumRows() <= int64(len(fresh)) {
		last := rgs[len(rgs)-1]
		rows, err := readAdds(last)
		if err != nil {
			return err
		}
		fresh = append(rows, fresh...)
		rgs = rgs[:len(rgs)-1]
	}
	p.copied, p.fresh = rgs, fresh
	p.adds = int64(len(fresh))
	for _, rg := range rgs {
		p.adds += rg.NumRows()
	}
	return nil
}

// readAdds decodes the rows of an add row group.
func readAdds(rg parquet.RowGroup) (out []cpRow, err error) {
	defer func() { // parquet-go panics on a schema it cannot convert
		if p := recover(); p != nil {
			err = fmt.Errorf("previous checkpoint schema: %v", p)
		}
	}()
	r := parquet.NewGenericRowGroupReader[cpRow](rg)
	defer r.Close()
	out = make([]cpRow, rg.NumRows())
	n, err := r.Read(out)
	if err != nil && !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("read previous checkpoint: %w", err)
	}
	if int64(n) != rg.NumRows() {
		return nil, fmt.Errorf("read previous checkpoint: %d of %d rows", n, rg.NumRows())
	}
	for i := range out {
		if out[i].Add == nil {
			return nil, fmt.Errorf("previous checkpoint has a non-add row among its adds")
		}
	}
	return out, nil
}

// checkpointWriterOptions write a checkpoint that Spark's vectorized
// Parquet reader for nested columns (Spark 3.5's default) reads: PLAIN
// strings, data pages v1 as in the data files. With parquet-go's default
// DELTA_LENGTH_BYTE_ARRAY strings that reader read metaData.schemaString
// as "", and delta-spark could not load the table (the non-vectorized
// reader and delta-rs read it right).
var checkpointWriterOptions = []parquet.WriterOption{
	parquet.Compression(&parquet.Snappy),
	parquet.DataPageVersion(1),
	parquet.DefaultEncodingFor(parquet.ByteArray, &parquet.Plain),
}

// plainStrings reports whether every string column of a checkpoint is
// PLAIN-encoded (checkpointWriterOptions), so that its row groups can be
// copied: a checkpoint written before, with DELTA_LENGTH_BYTE_ARRAY
// strings, is encoded afresh instead.
func plainStrings(f *parquet.File) bool {
	for _, rg := range f.Metadata().RowGroups {
		for _, c := range rg.Columns {
			if slices.Contains(c.MetaData.Encoding, format.DeltaLengthByteArray) || slices.Contains(c.MetaData.Encoding, format.DeltaByteArray) {
				return false
			}
		}
	}
	return true
}

// write writes the planned checkpoint and _last_checkpoint.
func (p *checkpointPlan) write(dir string, version int64, fsync bool) error {
	size, err := writeAtomic(checkpointPath(dir, version), fsync, func(w io.Writer) error {
		pw := parquet.NewGenericWriter[cpRow](w, checkpointWriterOptions...)
		if _, err := pw.Write(p.head); err != nil {
			return fmt.Errorf("write rows: %w", err)
		}
		if err := pw.Flush(); err != nil {
			return fmt.Errorf("write rows: %w", err)
		}
		for _, rg := range p.copied {
			if _, err := pw.WriteRowGroup(rg); err != nil {
				return fmt.Errorf("copy row group: %w", err)
			}
		}
		if _, err := pw.Write(p.fresh); err != nil {
			return fmt.Errorf("write rows: %w", err)
		}
		return pw.Close()
	})
	if err != nil {
		return err
	}
	lc, err := json.Marshal(lastCheckpoint{Version: version, Size: int64(len(p.head)) + p.adds,
		SizeInBytes: size, NumAddFiles: p.adds})
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

// openedCheckpoint is a checkpoint file open for copying.
type openedCheckpoint struct {
	f  *os.File
	pf *parquet.File
}

func (o *openedCheckpoint) Close() error { return o.f.Close() }

// openCheckpoint opens the checkpoint of version.
func openCheckpoint(dir string, version int64) (*openedCheckpoint, error) {
	f, err := os.Open(checkpointPath(dir, version))
	if err != nil {
		return nil, fmt.Errorf("open checkpoint %d: %w", version, err)
	}
	info, err := f.Stat()
	if err != nil {
		_ = f.Close()
		return nil, fmt.Errorf("open checkpoint %d: %w", version, err)
	}
	pf, err := parquet.OpenFile(f, info.Size(), parquet.SkipPageIndex(true), parquet.SkipBloomFilters(true))
	if err != nil {
		_ = f.Close()
		return nil, fmt.Errorf("open checkpoint %d: %w", version, err)
	}
	return &openedCheckpoint{f: f, pf: pf}, nil
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
