package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"regexp"
	"sort"

	"golang.org/x/perf/benchfmt"
)

// samples holds every value a benchmark run reported: by benchmark name
// (without "Benchmark" and the GOMAXPROCS suffix), then by unit, in the
// order the repetitions printed them.
type samples map[string]map[string][]float64

var procsSuffix = regexp.MustCompile(`-\d+$`)

// read parses `go test -bench` output; lines that are not benchmark
// results (test logs, PASS, ok) are skipped.
func (s samples) read(r io.Reader, name string) error {
	data, err := io.ReadAll(r)
	if err != nil {
		return fmt.Errorf("read %s: %w", name, err)
	}
	br := benchfmt.NewReader(bytes.NewReader(rejoin(data)), name)
	for br.Scan() {
		res, ok := br.Result().(*benchfmt.Result)
		if !ok {
			continue // a syntax error or a unit line: not a result
		}
		bench := string(procsSuffix.ReplaceAll(bytes.Clone(res.Name.Full()), nil))
		if s[bench] == nil {
			s[bench] = map[string][]float64{}
		}
		for _, v := range res.Values {
			unit, val := v.Unit, v.Value // custom units stay as printed
			if v.OrigUnit != "" {        // ns/op, which benchfmt makes sec/op
				unit, val = v.OrigUnit, v.OrigValue
			}
			s[bench][unit] = append(s[bench][unit], val)
		}
	}
	if err := br.Err(); err != nil && !errors.Is(err, io.EOF) {
		return fmt.Errorf("read %s: %w", name, err)
	}
	return nil
}

var (
	strayName = regexp.MustCompile(`^(Benchmark\S+)\s+\D`)    // a name, then a benchmark's own output
	orphan    = regexp.MustCompile(`^\s+\d+\s+[-+.\deE]+ \S`) // iterations and values without a name
)

// rejoin puts a result line back together when the benchmark printed to
// stdout between go test's name and its figures: the name line gets the
// figures of the next line that has no name.
func rejoin(data []byte) []byte {
	lines := bytes.Split(data, []byte("\n"))
	var out [][]byte
	var pending []byte
	for _, l := range lines {
		if m := strayName.FindSubmatch(l); m != nil {
			pending = m[1]
			out = append(out, l)
			continue
		}
		if pending != nil && orphan.Match(l) {
			l = append(append(append([]byte(nil), pending...), ' '), l...)
			pending = nil
		}
		out = append(out, l)
	}
	return bytes.Join(out, []byte("\n"))
}

// values returns what bench reported in unit, one per repetition.
func (s samples) values(bench, unit string) []float64 {
	return s[bench][unit]
}

// median of vs; ok is false for none.
func median(vs []float64) (m float64, ok bool) {
	if len(vs) == 0 {
		return 0, false
	}
	c := append([]float64(nil), vs...)
	sort.Float64s(c)
	if len(c)%2 == 1 {
		return c[len(c)/2], true
	}
	return (c[len(c)/2-1] + c[len(c)/2]) / 2, true
}
