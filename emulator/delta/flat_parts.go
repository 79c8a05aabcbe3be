package delta

import (
	"runtime"
	"sort"
	"sync"

	"github.com/parquet-go/parquet-go"
)

// flatPartRows is the fewest rows of a part of a batch stageFlat converts
// and writes on a goroutine of its own: smaller parts cost more in files
// than they gain in time.
const flatPartRows = 4096

// flatParts splits n rows into [lo, hi) parts, one per processor at most,
// none smaller than flatPartRows (a smaller batch is one part).
func flatParts(n int) [][2]int {
	k := max(1, min(runtime.GOMAXPROCS(0), n/flatPartRows))
	parts := make([][2]int, k)
	for i := range parts {
		parts[i] = [2]int{i * n / k, (i + 1) * n / k}
	}
	return parts
}

// inParallel runs fn(0) … fn(n-1) at once and waits for them all. A panic
// in one is raised again in the caller once all have ended, so the
// caller's recover (the drain's guard) sees it as it would a panic of its
// own.
func inParallel(n int, fn func(k int)) {
	panics := make([]any, n)
	var wg sync.WaitGroup
	for k := 1; k < n; k++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { panics[k] = recover() }()
			fn(k)
		}()
	}
	func() {
		defer func() { panics[0] = recover() }()
		fn(0)
	}()
	wg.Wait()
	for _, p := range panics {
		if p != nil {
			panic(p)
		}
	}
}

// mergeDropped is the dropped fields of the parts as one report: counts
// summed, each field's example from the first part that dropped it.
func mergeDropped(parts []flatPart) []DroppedField {
	if len(parts) == 1 {
		return parts[0].dropped
	}
	byPath := map[string]*DroppedField{}
	var out []DroppedField
	for _, p := range parts {
		for _, d := range p.dropped {
			if f, ok := byPath[d.Path]; ok {
				f.Count += d.Count
				continue
			}
			byPath[d.Path] = &d
		}
	}
	for _, f := range byPath {
		out = append(out, *f)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out
}

// Buffers of the Parquet values of a batch's columns, kept between batches:
// a batch's are a megabyte or more, which is costly to allocate and clear
// afresh each time.
var valuesPool sync.Pool // *[]parquet.Value

// takeValues returns an empty value buffer with room for n values.
func takeValues(n int) []parquet.Value {
	if b, ok := valuesPool.Get().(*[]parquet.Value); ok && cap(*b) >= n {
		return (*b)[:0]
	}
	return make([]parquet.Value, 0, n)
}

// release gives f's buffers back once its rows are written; what they
// point at (the record values) is cleared so the pool holds no record.
func (f *flatBatch) release() {
	for k, col := range f.cols {
		clear(col)
		col = col[:0]
		valuesPool.Put(&col)
		f.cols[k] = nil
	}
	clear(f.row)
}
