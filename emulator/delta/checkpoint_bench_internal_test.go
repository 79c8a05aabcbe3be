package delta

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// cpState is a table state of 10,000 live one-row files.
func cpState(b *testing.B, dir string) tableState {
	_ = os.MkdirAll(filepath.Join(dir, logDirName), 0o755)
	st := newTableState()
	st.version = 10000
	st.protocol = &protocolAction{MinReaderVersion: 1, MinWriterVersion: 2}
	st.meta = &metaDataAction{ID: "x", SchemaString: `{"type":"struct","fields":[]}`, PartitionColumns: []string{}, Configuration: map[string]string{}}
	st.txns["bench"] = 1
	for i := 0; i < 10000; i++ {
		st.addFile(&addAction{Path: fmt.Sprintf("part-00000-%08d-aaaa-bbbb-cccc-c000.snappy.parquet", i), PartitionValues: map[string]string{}, Size: 700, ModificationTime: 1714521600000, DataChange: true, Stats: `{"numRecords":1,"minValues":{"n":2,"s":"y"},"maxValues":{"n":2,"s":"y"},"nullCount":{"n":0,"s":0}}`})
	}
	return st
}

// BenchmarkCheckpointWrite10k writes the checkpoint of a table of 10,000
// files: the cost every tenth commit pays at that size.
func BenchmarkCheckpointWrite10k(b *testing.B) {
	dir := b.TempDir()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		st := cpState(b, dir) // a full rewrite each time
		b.StartTimer()
		if err := writeCheckpoint(dir, &st, false); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCheckpointRead10k reads that checkpoint whole, as ReadState
// and a writer's first checkpoint after opening do.
func BenchmarkCheckpointRead10k(b *testing.B) {
	dir := b.TempDir()
	st := cpState(b, dir)
	if err := writeCheckpoint(dir, &st, false); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := readCheckpoint(dir, 10000); err != nil {
			b.Fatal(err)
		}
	}
}
