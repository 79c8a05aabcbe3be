package delta_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/parquet-go/parquet-go"

	"github.com/fabrictest/fabrictest/emulator/delta"
	"github.com/fabrictest/fabrictest/emulator/rows"
)

const (
	benchRows  = 1_000_000
	benchBatch = 10_000
)

var benchBase = time.Date(2024, 5, 1, 0, 0, 0, 0, time.UTC)

// benchBatchRows builds the rows start..start+n-1 as package rows would
// decode them: numbers as json.Number, the timestamp as RFC 3339 text.
func benchBatchRows(start, n int) []rows.Row {
	batch := make([]rows.Row, n)
	for i := range batch {
		id := start + i
		batch[i] = rows.Row{
			"id":     json.Number(strconv.Itoa(id)),
			"device": "dev-" + strconv.Itoa(id%100),
			"temp":   json.Number(strconv.Itoa(id%40) + ".5"),
			"ok":     id%3 == 0,
			"ts":     benchBase.Add(time.Duration(id) * time.Millisecond).Format(time.RFC3339Nano),
		}
	}
	return batch
}

// benchRow is the same row as a Go struct for parquet-go's typed writer.
type benchRow struct {
	ID     int64     `parquet:"id"`
	Device string    `parquet:"device"`
	Temp   float64   `parquet:"temp"`
	OK     bool      `parquet:"ok"`
	TS     time.Time `parquet:"ts,timestamp(microsecond)"`
}

func toBenchRow(r rows.Row) (benchRow, error) {
	id, err := r["id"].(json.Number).Int64()
	if err != nil {
		return benchRow{}, err
	}
	temp, err := r["temp"].(json.Number).Float64()
	if err != nil {
		return benchRow{}, err
	}
	ts, err := time.Parse(time.RFC3339Nano, r["ts"].(string))
	if err != nil {
		return benchRow{}, err
	}
	return benchRow{ID: id, Device: r["device"].(string), Temp: temp, OK: r["ok"].(bool), TS: ts}, nil
}

func maxRSSMiB() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return -1
	}
	return float64(ru.Maxrss) / 1024 // Linux reports KiB
}

// appendMillion appends the benchmark rows to a new table at dir and
// returns the time spent in Append (building rows is not timed).
func appendMillion(b *testing.B, dir string, opts ...delta.Option) time.Duration {
	ctx := context.Background()
	tbl, err := delta.Open(dir, opts...)
	if err != nil {
		b.Fatal(err)
	}
	var spent time.Duration
	for start := 0; start < benchRows; start += benchBatch {
		batch := benchBatchRows(start, benchBatch)
		t0 := time.Now()
		if _, err := tbl.Append(ctx, batch, delta.Txn{AppID: "bench", Version: int64(start + benchBatch - 1)}); err != nil {
			b.Fatal(err)
		}
		spent += time.Since(t0)
	}
	again, err := delta.Open(dir)
	if err != nil {
		b.Fatal(err)
	}
	last, _, err := again.TxnVersion("bench")
	if err != nil || again.Version() != benchRows/benchBatch-1 || last != benchRows-1 {
		b.Fatalf("table at version %d, txn %d (%v)", again.Version(), last, err)
	}
	return spent
}

// writeParquet writes the benchmark rows straight to one Parquet file with
// parquet-go's typed writer (converting each row to a struct, as a writer
// without Delta would) and returns the time spent.
func writeParquet(b *testing.B, path string) time.Duration {
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	w := parquet.NewGenericWriter[benchRow](f, parquet.Compression(&parquet.Snappy), parquet.DataPageVersion(1))
	var spent time.Duration
	typed := make([]benchRow, benchBatch)
	for start := 0; start < benchRows; start += benchBatch {
		batch := benchBatchRows(start, benchBatch)
		t0 := time.Now()
		for j, r := range batch {
			if typed[j], err = toBenchRow(r); err != nil {
				b.Fatal(err)
			}
		}
		if _, err := w.Write(typed); err != nil {
			b.Fatal(err)
		}
		spent += time.Since(t0)
	}
	t0 := time.Now()
	if err := w.Close(); err != nil {
		b.Fatal(err)
	}
	if err := f.Sync(); err != nil {
		b.Fatal(err)
	}
	return spent + time.Since(t0)
}

// decodeRate measures package rows' JSON decoding on 100,000 record values
// shaped like the benchmark rows.
func decodeRate() float64 {
	values := make([][]byte, 100_000)
	for j := range values {
		values[j] = []byte(fmt.Sprintf(`{"id":%d,"device":"dev-%d","temp":%d.5,"ok":%v,"ts":"%s"}`,
			j, j%100, j%40, j%3 == 0, benchBase.Add(time.Duration(j)*time.Millisecond).Format(time.RFC3339Nano)))
	}
	t0 := time.Now()
	for _, v := range values {
		_ = rows.FromValue(v)
	}
	return float64(len(values)) / time.Since(t0).Seconds()
}

// BenchmarkAppendMillionRows appends 1,000,000 small rows (five columns:
// long, string, double, boolean, timestamp) in batches of 10,000, one
// commit each with a txn, and reports rows/s and the process's peak RSS
// after it. In the same run it appends them again with WithoutFsync, writes
// them straight to one Parquet file with parquet-go's typed writer, and
// reports the ratio of the Delta rate to the Parquet rate, and how fast
// package rows decodes such JSON record values (the step before Append in
// a drain).
func BenchmarkAppendMillionRows(b *testing.B) {
	for i := 0; i < b.N; i++ {
		dir := b.TempDir()
		deltaTime := appendMillion(b, filepath.Join(dir, "delta"))
		deltaRSS := maxRSSMiB()
		nosyncTime := appendMillion(b, filepath.Join(dir, "delta-nosync"), delta.WithoutFsync())
		rawTime := writeParquet(b, filepath.Join(dir, "raw.parquet"))
		decode := decodeRate()

		deltaRate := benchRows / deltaTime.Seconds()
		nosyncRate := benchRows / nosyncTime.Seconds()
		rawRate := benchRows / rawTime.Seconds()
		b.ReportMetric(deltaRate, "delta-rows/s")
		b.ReportMetric(rawRate, "parquet-rows/s")
		b.ReportMetric(deltaRate/rawRate, "delta/parquet")
		b.ReportMetric(deltaRSS, "peak-RSS-MiB")
		fmt.Printf("delta append (fsync): %d rows, %d commits, %.2fs, %.0f rows/s, peak RSS %.0f MiB\n",
			benchRows, benchRows/benchBatch, deltaTime.Seconds(), deltaRate, deltaRSS)
		fmt.Printf("delta append (WithoutFsync): %.2fs, %.0f rows/s\n", nosyncTime.Seconds(), nosyncRate)
		fmt.Printf("parquet-go typed writer, one file: %.2fs, %.0f rows/s\n", rawTime.Seconds(), rawRate)
		fmt.Printf("ratio delta/parquet: %.2f (fsync), %.2f (WithoutFsync)\n", deltaRate/rawRate, nosyncRate/rawRate)
		fmt.Printf("rows.FromValue JSON decode: %.0f rows/s\n", decode)
	}
}
