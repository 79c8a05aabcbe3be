package delta

import (
	"crypto/rand"
	"fmt"
	"os"
	"path/filepath"

	"github.com/parquet-go/parquet-go"

	"github.com/fabrictest/fabrictest/emulator/rows"
)

// shredChunk is how many rows are shredded before each WriteRows call.
const shredChunk = 256

// dataFile is a Parquet data file written for one commit.
type dataFile struct {
	path    string // relative to the table root
	size    int64
	rows    int64
	stats   string
	modTime int64 // ms since the epoch
	// synced, when not nil, answers once the file's fsync (started when it
	// was written) is done: the commit that adds it waits for it before the
	// log entry appears, and overlaps it with writing the entry meanwhile.
	synced  chan error
	syncErr error
}

// durable waits for the file's fsync, if one is under way, and returns its
// error (again on every call).
func (df *dataFile) durable() error {
	if df.synced != nil {
		df.syncErr, df.synced = <-df.synced, nil
	}
	return df.syncErr
}

// rowFunc returns the Parquet values of row i of a batch, in dst's storage
// when it makes them.
type rowFunc func(dst parquet.Row, i int) (parquet.Row, error)

// shredRows is the rowFunc of rows shredded by the plan's shredder.
func shredRows(p *plan, aliases bool, batch []rows.Row) rowFunc {
	sh := &shredder{p: p, aliases: aliases}
	return func(dst parquet.Row, i int) (parquet.Row, error) { return sh.shred(dst, batch[i]) }
}

// writeDataFile writes the n rows of a batch to a new Parquet file in dir
// with the plan's schema (createDataFile), row by row.
func writeDataFile(dir string, p *plan, n int, row rowFunc, o *options) (*dataFile, error) {
	return createDataFile(dir, p, n, o, func(w *parquet.GenericWriter[any]) error { return writeRowChunks(w, n, row) })
}

// writeRowChunks writes n rows to w, shredChunk rows at a time.
func writeRowChunks(w *parquet.GenericWriter[any], n int, row rowFunc) error {
	buf := make([]parquet.Row, min(shredChunk, n))
	for start := 0; start < n; start += shredChunk {
		chunk := buf[:min(shredChunk, n-start)]
		for i := range chunk {
			var err error
			if chunk[i], err = row(chunk[i], start+i); err != nil {
				return fmt.Errorf("shred row %d: %w", start+i, err)
			}
		}
		if _, err := w.WriteRows(chunk); err != nil {
			return fmt.Errorf("write rows: %w", err)
		}
	}
	return nil
}

// createDataFile writes a new Parquet file of n rows in dir with the
// plan's schema, snappy, data page v1, its values given by write. The file
// name is unique (a random UUID), so no file is ever overwritten; a file
// that fails is removed.
func createDataFile(dir string, p *plan, n int, o *options, write func(*parquet.GenericWriter[any]) error) (_ *dataFile, err error) {
	name := "part-00000-" + newUUID() + "-c000.snappy.parquet"
	full := filepath.Join(dir, name)
	f, err := os.OpenFile(full, os.O_WRONLY|os.O_CREATE|os.O_EXCL, FileMode)
	if err != nil {
		return nil, fmt.Errorf("create data file: %w", err)
	}
	defer func() {
		if err != nil {
			_ = f.Close()
			_ = os.Remove(full)
		}
	}()
	w := parquet.NewGenericWriter[any](f, p.parquet,
		parquet.Compression(&fastSnappy{}),
		parquet.DataPageVersion(1),
		parquet.MaxRowsPerRowGroup(o.rowGroupRows),
	)
	if err := write(w); err != nil {
		return nil, err
	}
	if err := w.Close(); err != nil {
		return nil, fmt.Errorf("close parquet writer: %w", err)
	}
	info, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("stat data file: %w", err)
	}
	df := &dataFile{
		path:    name,
		size:    info.Size(),
		rows:    int64(n),
		stats:   p.statsJSON(int64(n)),
		modTime: info.ModTime().UnixMilli(),
	}
	if !o.fsync {
		if err := f.Close(); err != nil {
			return nil, fmt.Errorf("close data file: %w", err)
		}
		return df, nil
	}
	df.synced = make(chan error, 1)
	go func() { df.synced <- syncAndClose(f) }()
	return df, nil
}

// syncAndClose fsyncs a data file and closes it.
func syncAndClose(f *os.File) error {
	if err := f.Sync(); err != nil {
		_ = f.Close()
		return fmt.Errorf("sync data file: %w", err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("close data file: %w", err)
	}
	return nil
}

// removeDataFile deletes a data file that no commit references.
func removeDataFile(dir string, df *dataFile) {
	if df != nil {
		_ = df.durable() // its descriptor closed first
		// An orphan that cannot be removed is harmless: readers only read
		// the files that the log adds.
		_ = os.Remove(filepath.Join(dir, df.path))
	}
}

// newUUID returns a random (version 4) UUID.
func newUUID() string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}
