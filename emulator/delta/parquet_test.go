package delta

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/encoding/thrift"
	"github.com/parquet-go/parquet-go/format"
)

// writeTestFile writes a batch the way Append does and opens the file.
func writeTestFile(t *testing.T, objects ...string) (*parquet.File, *os.File) {
	t.Helper()
	batch := parseRows(t, objects...)
	ev, err := evolve(Schema{}, batch)
	if err != nil {
		t.Fatal(err)
	}
	p, err := compile(ev.schema)
	if err != nil {
		t.Fatal(err)
	}
	o := defaultOptions()
	dir := t.TempDir()
	df, err := writeDataFile(dir, p, len(batch), shredRows(p, ev.aliases, batch), &o)
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(filepath.Join(dir, df.path))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	pf, err := parquet.OpenFile(f, df.size)
	if err != nil {
		t.Fatal(err)
	}
	return pf, f
}

func TestParquetSchemaAnnotations(t *testing.T) {
	pf, _ := writeTestFile(t,
		`{"s":"x","l":1,"d":1.5,"b":true,"ts":"2024-01-01T00:00:00Z","st":{"a":1},"arr":[{"k":"v"}]}`)
	var got []string
	for _, e := range pf.Metadata().Schema {
		line := e.Name
		if e.RepetitionType.Valid {
			line += " " + e.RepetitionType.V.String()
		}
		if e.Type.Valid {
			line += " " + e.Type.V.String()
		}
		if e.ConvertedType.Valid {
			line += fmt.Sprintf(" converted=%d", e.ConvertedType.V)
		}
		if l := e.LogicalType.String(); l != "" {
			line += " logical=" + l
		}
		got = append(got, line)
	}
	want := []string{
		"spark_schema",
		"arr OPTIONAL converted=3 logical=LIST",
		"list REPEATED",
		"element OPTIONAL",
		"k OPTIONAL BYTE_ARRAY converted=0 logical=STRING",
		"b OPTIONAL BOOLEAN",
		"d OPTIONAL DOUBLE",
		"l OPTIONAL INT64 converted=18 logical=INT(64,true)",
		"s OPTIONAL BYTE_ARRAY converted=0 logical=STRING",
		"st OPTIONAL",
		"a OPTIONAL INT64 converted=18 logical=INT(64,true)",
		"ts OPTIONAL INT64 converted=10 logical=TIMESTAMP(isAdjustedToUTC=true,unit=MICROS)",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("Parquet schema\n got:\n%s\n want:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestParquetDataPagesAreVersion1(t *testing.T) {
	objs := make([]string, 3000)
	for i := range objs {
		objs[i] = fmt.Sprintf(`{"n":%d,"s":"value-%d","ts":"2024-01-01T00:00:%02dZ","a":[%d,%d],"o":{"x":%d.5}}`, i, i%7, i%60, i, i+1, i)
	}
	pf, f := writeTestFile(t, objs...)
	if n := len(pf.Metadata().RowGroups); n != 1 {
		t.Fatalf("%d row groups", n)
	}
	pages := 0
	for _, rg := range pf.Metadata().RowGroups {
		for _, cc := range rg.Columns {
			md := cc.MetaData
			if md.Codec != format.Snappy {
				t.Errorf("column %v: codec %v", md.PathInSchema, md.Codec)
			}
			start := md.DataPageOffset
			if md.DictionaryPageOffset > 0 && md.DictionaryPageOffset < start {
				start = md.DictionaryPageOffset
			}
			chunk := make([]byte, md.TotalCompressedSize)
			if _, err := f.ReadAt(chunk, start); err != nil && err != io.EOF {
				t.Fatal(err)
			}
			r := bytes.NewReader(chunk)
			for r.Len() > 0 {
				var h format.PageHeader
				if err := thrift.NewDecoder(new(thrift.CompactProtocol).NewReader(r)).Decode(&h); err != nil {
					t.Fatalf("column %v: page header: %v", md.PathInSchema, err)
				}
				if h.Type != format.DataPage && h.Type != format.DictionaryPage {
					t.Errorf("column %v: page type %v, want DATA_PAGE (v1)", md.PathInSchema, h.Type)
				}
				pages++
				if _, err := r.Seek(int64(h.CompressedPageSize), io.SeekCurrent); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	if pages == 0 {
		t.Fatal("no pages found")
	}
}
