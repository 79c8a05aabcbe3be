package pipeline

import (
	"math"
	"math/big"
	"slices"
	"sort"
)

// series holds the rows of one partition of one aggregate that a later row
// may still count, in time order (rows of equal time in arrival order), and
// a running aggregate over the newest of them: those with time > ws. A row
// at or after every row held, whose interval starts at or after ws, is
// answered from the running aggregate after moving ws up to its interval's
// start; any other row is answered by scanning its interval.
type series struct {
	ts         []int64
	vs         []number // parallel to ts; zero for counts
	ws         int64    // the running window holds the rows with time > ws
	f          int      // index of the first of them
	run        accum
	minq, maxq []int // indices of the running window's suffix minima and maxima
}

func newSeries() *series { return &series{ws: math.MinInt64} }

func (se *series) insert(t int64, v number, numeric bool) {
	p := sort.Search(len(se.ts), func(i int) bool { return se.ts[i] > t })
	se.ts = slices.Insert(se.ts, p, t)
	se.vs = slices.Insert(se.vs, p, v)
	if t <= se.ws { // before the running window
		se.f++
		if numeric {
			for j := range se.minq {
				se.minq[j]++
			}
			for j := range se.maxq {
				se.maxq[j]++
			}
		}
		return
	}
	se.run.add(v, numeric)
	if !numeric {
		return
	}
	if p == len(se.ts)-1 {
		se.push(p)
	} else {
		se.rebuild()
	}
}

// push appends index j to the monotonic queues.
func (se *series) push(j int) {
	v := se.vs[j]
	for len(se.minq) > 0 && cmpNumber(se.vs[se.minq[len(se.minq)-1]], v) >= 0 {
		se.minq = se.minq[:len(se.minq)-1]
	}
	se.minq = append(se.minq, j)
	for len(se.maxq) > 0 && cmpNumber(se.vs[se.maxq[len(se.maxq)-1]], v) <= 0 {
		se.maxq = se.maxq[:len(se.maxq)-1]
	}
	se.maxq = append(se.maxq, j)
}

func (se *series) rebuild() {
	se.minq, se.maxq = se.minq[:0], se.maxq[:0]
	for j := se.f; j < len(se.ts); j++ {
		se.push(j)
	}
}

// slide moves the running window's start up to ws.
func (se *series) slide(ws int64, numeric bool) {
	if ws <= se.ws {
		return
	}
	se.ws = ws
	for se.f < len(se.ts) && se.ts[se.f] <= ws {
		se.run.sub(se.vs[se.f], numeric)
		se.f++
	}
	for len(se.minq) > 0 && se.minq[0] < se.f {
		se.minq = se.minq[1:]
	}
	for len(se.maxq) > 0 && se.maxq[0] < se.f {
		se.maxq = se.maxq[1:]
	}
}

// evict forgets the rows at or before cut, which no later row counts.
func (se *series) evict(cut int64, numeric bool) {
	if len(se.ts) == 0 || se.ts[0] > cut {
		return
	}
	se.slide(cut, numeric)
	k := sort.Search(len(se.ts), func(i int) bool { return se.ts[i] > cut })
	se.ts, se.vs = se.ts[k:], se.vs[k:]
	se.f -= k
	for j := range se.minq {
		se.minq[j] -= k
	}
	for j := range se.maxq {
		se.maxq[j] -= k
	}
}

// query returns the aggregate over the rows with time in (t − d, t].
func (se *series) query(t, d int64, numeric bool) *window1 {
	start := satAdd(t, -d)
	if (len(se.ts) == 0 || t >= se.ts[len(se.ts)-1]) && start >= se.ws {
		se.slide(start, numeric)
		w := &window1{acc: &se.run}
		if numeric && len(se.minq) > 0 {
			w.min, w.max = se.vs[se.minq[0]], se.vs[se.maxq[0]]
		}
		return w
	}
	lo := sort.Search(len(se.ts), func(i int) bool { return se.ts[i] > start })
	hi := sort.Search(len(se.ts), func(i int) bool { return se.ts[i] > t })
	w := &window1{acc: &accum{}}
	for j := lo; j < hi; j++ {
		v := se.vs[j]
		w.acc.add(v, numeric)
		if numeric && (j == lo || cmpNumber(v, w.min) < 0) {
			w.min = v
		}
		if numeric && (j == lo || cmpNumber(v, w.max) > 0) {
			w.max = v
		}
	}
	return w
}

// window1 is one row's interval: its aggregate and, for numbers, its
// extremes.
type window1 struct {
	acc      *accum
	min, max number
}

func (w *window1) result(fn AggFunc) any {
	a := w.acc
	if a == nil {
		a = &accum{}
	}
	if fn == Count {
		return intNumber(a.n).json()
	}
	if a.n == 0 {
		return nil
	}
	switch fn {
	case Sum:
		if a.floats == 0 {
			if a.ints.IsInt64() {
				return intNumber(a.ints.Int64()).json()
			}
			f, _ := new(big.Float).SetInt(&a.ints).Float64()
			return doubleValue(f)
		}
		f, _ := a.total().Float64()
		return doubleValue(f)
	case Avg:
		q := new(big.Float).SetPrec(53).Quo(a.total(), new(big.Float).SetInt64(a.n))
		f, _ := q.Float64()
		return doubleValue(f)
	case Min, Max:
		n := w.max
		if fn == Min {
			n = w.min
		}
		if a.floats > 0 && n.isInt {
			n = floatNumber(float64(n.i))
		}
		return n.json()
	}
	return nil
}

// accum is an exact running sum and count: integers in ints, doubles in fl
// as integer multiples of 2^-1074 (every finite double is one).
type accum struct {
	n      int64
	floats int64 // values that are not integers
	ints   big.Int
	fl     big.Int
}

const subnormalShift = 1074

func (a *accum) add(v number, numeric bool) { a.step(v, numeric, 1) }
func (a *accum) sub(v number, numeric bool) { a.step(v, numeric, -1) }

func (a *accum) step(v number, numeric bool, sign int64) {
	a.n += sign
	if !numeric {
		return
	}
	if v.isInt {
		x := big.NewInt(v.i)
		if sign < 0 {
			a.ints.Sub(&a.ints, x)
		} else {
			a.ints.Add(&a.ints, x)
		}
		return
	}
	a.floats += sign
	x := scaledFloat(v.f)
	if sign < 0 {
		a.fl.Sub(&a.fl, x)
	} else {
		a.fl.Add(&a.fl, x)
	}
}

// total returns the exact sum.
func (a *accum) total() *big.Float {
	t := new(big.Int).Lsh(&a.ints, subnormalShift)
	t.Add(t, &a.fl)
	x := new(big.Float).SetInt(t)
	return x.SetMantExp(x, -subnormalShift)
}

// scaledFloat returns f·2^1074, an integer for every finite double.
func scaledFloat(f float64) *big.Int {
	mant, exp := math.Frexp(f) // f = mant·2^exp, 0.5 <= |mant| < 1
	z := big.NewInt(int64(mant * (1 << 53)))
	if shift := exp - 53 + subnormalShift; shift < 0 {
		return z.Rsh(z, uint(-shift)) // exact: f is a multiple of 2^-1074
	}
	return z.Lsh(z, uint(exp-53+subnormalShift))
}
