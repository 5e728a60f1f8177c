package native

import (
	"sync"

	"github.com/torchtpu/torchtpu/dtype"
	"github.com/torchtpu/torchtpu/literal"
)

// Column input fusion: a sum over the dims around the kept ones (values
// [rows, cols, inner], result [cols]) folds the group's values row by row
// into one accumulator per column, so that the summed value (often a
// float32 tensor converted to float64) is never materialized. Each column
// is folded in input order, starting from the init value and rounded to
// the element type after each add, as the reduce kernel folds it; threads
// split the columns, never a column. A NaN accumulator is kept as it is:
// the first NaN of a column is its result, as the kernel's fold returns it
// (an add of two NaNs returns either one, by the instruction's operand
// order, which the compiler chooses).

// foldColumnsGroup computes g and sums it into data, the reduce's result
// of rf.cols elements of g.dt.
func (fr *frame) foldColumnsGroup(g *fusedGroup, leaves []*literal.Literal, start float64, data []byte) {
	rf := g.red
	body := func(lo, hi int) {
		if g.f32 {
			foldColumns[float32](g, leaves, float32(start), data, lo, hi, &scratch32)
		} else {
			foldColumns[float64](g, leaves, start, data, lo, hi, &scratch64)
		}
	}
	// Columns split among the threads in runs of 16 or more.
	parts := 1
	if rf.rows*rf.cols*rf.inner >= 2*fuseGrain {
		parts = min(Threads(), max(1, rf.cols*rf.inner/16))
	}
	if parts <= 1 {
		body(0, rf.cols)
		return
	}
	runParts(rf.cols, parts, body)
}

// foldColumns sums columns [lo, hi) of the group's values into their
// elements of data.
func foldColumns[T fnum](g *fusedGroup, leaves []*literal.Literal, start T, data []byte, lo, hi int, pool *sync.Pool) {
	rf := g.red
	if g.dt == dtype.F64 && !g.f32 && rf.inner > 1 {
		foldColumnsSlots(g, leaves, float64(start), data, lo, hi)
		return
	}
	s := getScratch[T](pool, g)
	defer pool.Put(s)
	views := leafViews[T](g, leaves)
	acc := make([]T, hi-lo)
	for j := range acc {
		acc[j] = start
	}
	inner := rf.inner
	run := (hi - lo) * inner
	if a64, ok := any(acc).([]float64); ok && inner == 1 {
		if src := convertedF32(g, leaves); src != nil {
			// float32 values summed in float64, read as they are
			for r := 0; r < rf.rows; r++ {
				addF32To64(a64, src[r*rf.cols+lo:r*rf.cols+hi])
			}
			run = 0
		}
	}
	for r := 0; r < rf.rows && run > 0; r++ {
		base := (r*rf.cols + lo) * inner
		k := newChunker(g, base)
		col, t := 0, 0
		for c, end := base, base+run; c < end; {
			m, seg := k.len(c, end)
			row := evalChunk(g, leaves, views, s, nil, c, m, seg)
			if inner == 1 {
				a := acc[col : col+m]
				if a32, ok := any(a).([]float32); ok {
					addCols32(a32, any(row).([]float32))
				} else {
					for j, x := range row {
						if v := a[j]; v == v {
							a[j] = v + x
						}
					}
				}
				col += m
			} else {
				for len(row) > 0 {
					n := min(inner-t, len(row))
					acc[col] = sumChain(acc[col], row[:n])
					row = row[n:]
					if t += n; t == inner {
						t, col = 0, col+1
					}
				}
			}
			c += m
		}
	}
	switch out := any(acc).(type) {
	case []float32:
		dst, store := f32Out(data[4*lo : 4*hi])
		copy(dst, out)
		store()
	case []float64:
		res := make([]float64, len(out))
		copy(res, out)
		storeRow(data[8*lo:8*hi], dtype.F64, 0, res)
	}
}

// convertedF32 returns the float32 values of g's leaf when g is that
// contiguous leaf converted to float64, else nil.
func convertedF32(g *fusedGroup, leaves []*literal.Literal) []float32 {
	if len(g.nodes) != 2 || g.nodes[0].kind != fkLeaf || g.nodes[0].strides != nil || g.nodes[0].dt != dtype.F32 ||
		g.nodes[1].kind != fkConvert || g.nodes[1].args[0] != 0 || g.dt != dtype.F64 || leaves[0] == nil {
		return nil
	}
	src := f32View(leaves[0].Data)
	if len(src) != g.n {
		return nil
	}
	return src
}

// addF32To64 adds x to acc element by element, in float64.
func addF32To64(acc []float64, x []float32) {
	acc = acc[:len(x)]
	j0 := 0
	if simdRows && len(x) >= 8 {
		j0 = len(x) &^ 7
		addF32F64(&acc[0], &x[0], j0)
	}
	for j := j0; j < len(x); j++ {
		v := x[j]
		if a := acc[j]; a == a {
			acc[j] = a + float64(v)
		}
	}
}

// sumChain returns v + x[0] + x[1] + ..., one add after the other; a NaN
// sum keeps the first NaN.
func sumChain[T fnum](v T, x []T) T {
	for _, e := range x {
		if v != v {
			break
		}
		v += e
	}
	return v
}

// foldColumnsSlots is foldColumns for float64 values with inner > 1: each
// column's runs go to four chains (reduce_slots.go); a column whose total
// is NaN, or zero from a -0 init, is summed again in one chain.
func foldColumnsSlots(g *fusedGroup, leaves []*literal.Literal, start float64, data []byte, lo, hi int) {
	rf := g.red
	inner := rf.inner
	acc := make([]slots4, hi-lo)
	if src, mean := squaredDeviationF32(g, leaves); src != nil {
		// Σ (float64(x) - mean)², the batch-norm variance: the group's
		// three ops in a loop per run
		for r := 0; r < rf.rows; r++ {
			for col := lo; col < hi; col++ {
				base := (r*rf.cols + col) * inner
				acc[col-lo].addSquaredDeviation(src[base:base+inner], mean[col], r*inner)
			}
		}
	} else if src := convertedF32(g, leaves); src != nil {
		// float32 values summed in float64, read as they are
		for r := 0; r < rf.rows; r++ {
			for col := lo; col < hi; col++ {
				base := (r*rf.cols + col) * inner
				acc[col-lo].add32(src[base:base+inner], r*inner)
			}
		}
	} else {
		s := getScratch[float64](&scratch64, g)
		defer scratch64.Put(s)
		views := leafViews[float64](g, leaves)
		for r := 0; r < rf.rows; r++ {
			base := (r*rf.cols + lo) * inner
			k := newChunker(g, base)
			col, t := 0, 0
			for c, end := base, base+(hi-lo)*inner; c < end; {
				m, seg := k.len(c, end)
				row := evalChunk(g, leaves, views, s, nil, c, m, seg)
				for len(row) > 0 {
					n := min(inner-t, len(row))
					acc[col].add(row[:n], r*inner+t)
					row = row[n:]
					if t += n; t == inner {
						t, col = 0, col+1
					}
				}
				c += m
			}
		}
	}
	res := make([]float64, hi-lo)
	for j := range acc {
		t, ok := acc[j].total(start)
		if !ok {
			t = sumColumnChain(g, leaves, start, lo+j)
		}
		res[j] = t
	}
	storeRow(data[8*lo:8*hi], dtype.F64, 0, res)
}

// sumColumnChain sums column col of the group's float64 values in one
// chain, in input order (a NaN sum keeping the first NaN).
func sumColumnChain(g *fusedGroup, leaves []*literal.Literal, start float64, col int) float64 {
	rf := g.red
	s := getScratch[float64](&scratch64, g)
	defer scratch64.Put(s)
	views := leafViews[float64](g, leaves)
	acc := start
	for r := 0; r < rf.rows; r++ {
		base := (r*rf.cols + col) * rf.inner
		k := newChunker(g, base)
		for c, end := base, base+rf.inner; c < end; {
			m, seg := k.len(c, end)
			acc = sumChain(acc, evalChunk(g, leaves, views, s, nil, c, m, seg))
			c += m
		}
	}
	return acc
}

// squaredDeviationF32 returns x's float32 values and the per-column means
// when g (a column sum's group) is (convert(x) - broadcast(mean))² with x a
// contiguous float32 leaf and mean a float64 leaf holding one value per
// column, else nil.
func squaredDeviationF32(g *fusedGroup, leaves []*literal.Literal) ([]float32, []float64) {
	nodes := g.nodes
	if len(nodes) != 5 || g.dt != dtype.F64 || g.f32 {
		return nil, nil
	}
	root := &nodes[len(nodes)-1]
	if root.kind != fkBinary || root.name != "stablehlo.multiply" || root.args[0] != root.args[1] {
		return nil, nil
	}
	sub := &nodes[root.args[0]]
	if sub.kind != fkBinary || sub.name != "stablehlo.subtract" {
		return nil, nil
	}
	cv, mn := &nodes[sub.args[0]], sub.args[1]
	if cv.kind != fkConvert || cv.dt != dtype.F64 {
		return nil, nil
	}
	xl := cv.args[0]
	x := &nodes[xl]
	if x.kind != fkLeaf || x.strides != nil || x.dt != dtype.F32 || leaves[xl] == nil || nodes[mn].kind != fkLeaf ||
		nodes[mn].dt != dtype.F64 || leaves[mn] == nil || !columnStrides(g, nodes[mn].strides) {
		return nil, nil
	}
	src, mean := f32View(leaves[xl].Data), f64Bytes(leaves[mn].Data)
	if len(src) != g.n || len(mean) != g.red.cols {
		return nil, nil
	}
	return src, mean
}

// columnStrides reports whether a leaf read with strides (per dim of the
// group's shape) reads element j of the column index: 0 on the reduced
// dims, the kept dims' row-major strides on theirs.
func columnStrides(g *fusedGroup, strides []int64) bool {
	if len(strides) != len(g.shape) {
		return false
	}
	// the kept dims are the ones after the leading reduced ones whose
	// extents multiply to cols
	rows, a := 1, 0
	for a < len(g.shape) && rows < g.red.rows {
		rows *= int(g.shape[a])
		a++
	}
	if rows != g.red.rows {
		return false
	}
	want := make([]int64, len(g.shape))
	st, cols := int64(1), 1
	b := a
	for b < len(g.shape) && cols < g.red.cols {
		cols *= int(g.shape[b])
		b++
	}
	if cols != g.red.cols {
		return false
	}
	for d := b - 1; d >= a; d-- {
		want[d] = st
		st *= g.shape[d]
	}
	for d, s := range strides {
		if s != want[d] && g.shape[d] != 1 {
			return false
		}
	}
	return true
}
