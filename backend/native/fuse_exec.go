package native

import (
	"encoding/binary"
	"fmt"
	"math"
	"runtime"
	"sync"
	"unsafe"

	"github.com/torchtpu/torchtpu/dtype"
	"github.com/torchtpu/torchtpu/literal"
)

// Evaluation of a fusion group: the output is cut into chunks of
// fuseChunk elements; for each chunk every node of the group computes its
// values into a float64 scratch row (f32 values rounded after each op, so
// each element is bit for bit what the unfused kernels produce), and the
// root's row is stored. Large groups split their chunks over goroutines;
// each output element is computed by one goroutine in a fixed order, so
// results do not depend on the thread count.

const fuseChunk = 256

// fuseGrain is the element count per goroutine from which a group runs in
// parallel.
const fuseGrain = 1 << 14

// fnum is the element type of the scratch rows: float32 for groups whose
// float values are all f32 (f32 add, subtract, multiply, divide, max, min
// and comparisons in float32 give the correctly rounded results the
// float64 kernels round to), float64 otherwise.
type fnum interface{ ~float32 | ~float64 }

// fuseScratch is a worker's scratch: one row per node, and the odometer
// of strided leaves.
type fuseScratch[T fnum] struct {
	rows []T
	idx  []int64
	// cur holds each node's values for the current chunk: its scratch
	// row, or a view of a leaf's or the output's bytes.
	cur [][]T
}

var scratch32, scratch64 sync.Pool

func getScratch[T fnum](pool *sync.Pool, nodes, rank int) *fuseScratch[T] {
	s, _ := pool.Get().(*fuseScratch[T])
	if s == nil {
		s = &fuseScratch[T]{}
	}
	if cap(s.rows) < nodes*fuseChunk {
		s.rows = make([]T, nodes*fuseChunk)
	}
	s.rows = s.rows[:nodes*fuseChunk]
	if cap(s.idx) < rank {
		s.idx = make([]int64, rank)
	}
	s.idx = s.idx[:rank]
	if cap(s.cur) < nodes {
		s.cur = make([][]T, nodes)
	}
	s.cur = s.cur[:nodes]
	return s
}

// viewAs returns data as a []T in place when the element type is T's and
// the host allows it, else nil.
func viewAs[T fnum](data []byte, d dtype.DType) []T {
	if len(data) == 0 || !hostLittleEndian {
		return nil
	}
	var z T
	size := int(unsafe.Sizeof(z))
	if (size == 4 && d != dtype.F32) || (size == 8 && d != dtype.F64) || uintptr(unsafe.Pointer(unsafe.SliceData(data)))%uintptr(size) != 0 {
		return nil
	}
	return unsafe.Slice((*T)(unsafe.Pointer(unsafe.SliceData(data))), len(data)/size)
}

// leafViews returns, per node, the in-place view of identity leaves
// (nil where the node's values must be decoded).
func leafViews[T fnum](g *fusedGroup, leaves []*literal.Literal) [][]T {
	views := make([][]T, len(g.nodes))
	for i := range g.nodes {
		if nd := &g.nodes[i]; nd.kind == fkLeaf && nd.strides == nil && leaves[i] != nil { // nil: empty reduce
			views[i] = viewAs[T](leaves[i].Data, nd.dt)
		}
	}
	return views
}

// setRows points each node's current row at its view or scratch row
// for a chunk of m elements at c; out, when not nil, receives the root.
func setRows[T fnum](s *fuseScratch[T], views [][]T, out []T, c, m int) {
	for i := range s.cur {
		if v := views[i]; v != nil {
			s.cur[i] = v[c : c+m]
		} else {
			s.cur[i] = s.rows[i*fuseChunk : i*fuseChunk+m]
		}
	}
	if out != nil {
		s.cur[len(s.cur)-1] = out[c : c+m]
	}
}

// parallelRange runs body over [0, n) in contiguous parts, concurrently
// when n is large.
func parallelRange(n, grain int, body func(lo, hi int)) {
	workers := runtime.GOMAXPROCS(0)
	parts := min(workers, n/grain)
	if parts < 2 {
		body(0, n)
		return
	}
	var wg sync.WaitGroup
	for c := 1; c < parts; c++ {
		lo, hi := c*n/parts, (c+1)*n/parts
		wg.Add(1)
		go func() {
			defer wg.Done()
			body(lo, hi)
		}()
	}
	body(0, n/parts)
	wg.Wait()
}

// execFused computes g into out from the leaf literals (indexed by node;
// nil for other nodes). The caller has checked the leaves' types and sizes.
func execFused(g *fusedGroup, leaves []*literal.Literal, out []byte) {
	if g.f32 {
		execFusedT[float32](g, leaves, out, &scratch32)
	} else {
		execFusedT[float64](g, leaves, out, &scratch64)
	}
}

func execFusedT[T fnum](g *fusedGroup, leaves []*literal.Literal, out []byte, pool *sync.Pool) {
	views := leafViews[T](g, leaves)
	outView := viewAs[T](out, g.dt)
	parallelRange(g.n, fuseGrain, func(lo, hi int) {
		s := getScratch[T](pool, len(g.nodes), len(g.shape))
		defer pool.Put(s)
		for i := range g.nodes {
			if nd := &g.nodes[i]; nd.kind == fkScalar {
				row := s.rows[i*fuseChunk : (i+1)*fuseChunk]
				for k := range row {
					row[k] = T(nd.scalar)
				}
			}
		}
		for c := lo; c < hi; c += fuseChunk {
			m := min(fuseChunk, hi-c)
			setRows(s, views, outView, c, m)
			for i := range g.nodes {
				if views[i] == nil {
					fuseNodeChunk(g, i, leaves[i], s, c, m)
				}
			}
			if outView == nil {
				storeRow(out, g.dt, c, s.cur[len(g.nodes)-1])
			}
		}
	})
}

func row[T fnum](s *fuseScratch[T], i, _ int) []T { return s.cur[i] }

// fuseNodeChunk computes node i for elements [c, c+m).
func fuseNodeChunk[T fnum](g *fusedGroup, i int, leaf *literal.Literal, s *fuseScratch[T], c, m int) {
	nd := &g.nodes[i]
	dst := row(s, i, m)
	switch nd.kind {
	case fkScalar:
	case fkLeaf:
		if nd.strides == nil {
			loadRow(dst, leaf.Data, nd.dt, int64(c))
		} else {
			loadStrided(dst, leaf.Data, nd.dt, nd.cshape, nd.cstrides, s.idx, int64(c))
		}
	case fkUnary:
		x := row(s, nd.args[0], m)
		if nd.dt == dtype.Bool {
			for k, v := range x {
				dst[k] = f2b[T](nd.bun(v != 0))
			}
			return
		}
		switch nd.name {
		case "stablehlo.negate":
			for k, v := range x {
				dst[k] = -v
			}
		default:
			for k, v := range x {
				dst[k] = T(nd.un(float64(v)))
			}
		}
		roundRow(dst, nd.dt)
	case fkBinary:
		binaryRow(nd, dst, row(s, nd.args[0], m), row(s, nd.args[1], m))
	case fkCompare:
		compareRow(dst, row(s, nd.args[0], m), row(s, nd.args[1], m), nd.cmp)
	case fkNop:
	case fkCmpSelect:
		cmpSelectRow(dst, row(s, nd.args[0], m), row(s, nd.args[1], m), row(s, nd.args[2], m), row(s, nd.args[3], m), nd.cmp)
	case fkSelect:
		selectRow(dst, row(s, nd.args[0], m), row(s, nd.args[1], m), row(s, nd.args[2], m))
	case fkConvert:
		x := row(s, nd.args[0], m)
		if nd.dt == dtype.Bool {
			for k, v := range x {
				dst[k] = f2b[T](v != 0)
			}
			return
		}
		copy(dst, x)
		roundRow(dst, nd.dt)
	}
}

func binaryRow[T fnum](nd *fuseNode, dst, x, y []T) {
	y = y[:len(x)]
	dst = dst[:len(x)]
	if nd.dt == dtype.Bool {
		for k, v := range x {
			dst[k] = f2b[T](nd.bbin(v != 0, y[k] != 0))
		}
		return
	}
	switch nd.name {
	case "stablehlo.add":
		for k, v := range x {
			dst[k] = v + y[k]
		}
	case "stablehlo.subtract":
		for k, v := range x {
			dst[k] = v - y[k]
		}
	case "stablehlo.multiply":
		for k, v := range x {
			dst[k] = v * y[k]
		}
	case "stablehlo.divide":
		for k, v := range x {
			dst[k] = v / y[k]
		}
	default:
		for k, v := range x {
			dst[k] = T(nd.bin(float64(v), float64(y[k])))
		}
	}
	roundRow(dst, nd.dt)
}

// f2b is 1 for true and 0 for false, without a branch.
func f2b[T fnum](b bool) T {
	var x uint8
	if b {
		x = 1
	}
	return T(x)
}

// selectRow picks a[k] where p[k] != 0, else b[k], bit for bit and
// without branches.
func selectRow[T fnum](dst, p, a, b []T) {
	switch d := any(dst).(type) {
	case []float32:
		pp, aa, bb := any(p).([]float32), any(a).([]float32)[:len(d)], any(b).([]float32)[:len(d)]
		pp = pp[:len(d)]
		for k := range d {
			var m uint32
			if pp[k] != 0 {
				m = ^uint32(0)
			}
			d[k] = math.Float32frombits(math.Float32bits(aa[k])&m | math.Float32bits(bb[k])&^m)
		}
	case []float64:
		pp, aa, bb := any(p).([]float64), any(a).([]float64)[:len(d)], any(b).([]float64)[:len(d)]
		pp = pp[:len(d)]
		for k := range d {
			var m uint64
			if pp[k] != 0 {
				m = ^uint64(0)
			}
			d[k] = math.Float64frombits(math.Float64bits(aa[k])&m | math.Float64bits(bb[k])&^m)
		}
	}
}

func sel32(c bool, x, y float32) float32 {
	var m uint32
	if c {
		m = ^uint32(0)
	}
	return math.Float32frombits(math.Float32bits(x)&m | math.Float32bits(y)&^m)
}

func sel64(c bool, x, y float64) float64 {
	var m uint64
	if c {
		m = ^uint64(0)
	}
	return math.Float64frombits(math.Float64bits(x)&m | math.Float64bits(y)&^m)
}

// cmpSelectRow is selectRow of compareRow, in one pass.
func cmpSelectRow[T fnum](dst, a, b, x, y []T, dir string) {
	switch d := any(dst).(type) {
	case []float32:
		cmpSelect32(d, any(a).([]float32), any(b).([]float32), any(x).([]float32), any(y).([]float32), dir)
	case []float64:
		cmpSelect64(d, any(a).([]float64), any(b).([]float64), any(x).([]float64), any(y).([]float64), dir)
	}
}

func cmpSelect32(d, a, b, x, y []float32, dir string) {
	a, b, x, y = a[:len(d)], b[:len(d)], x[:len(d)], y[:len(d)]
	switch dir {
	case "EQ":
		for k := range d {
			d[k] = sel32(a[k] == b[k], x[k], y[k])
		}
	case "NE":
		for k := range d {
			d[k] = sel32(a[k] != b[k], x[k], y[k])
		}
	case "LT":
		for k := range d {
			d[k] = sel32(a[k] < b[k], x[k], y[k])
		}
	case "LE":
		for k := range d {
			d[k] = sel32(a[k] <= b[k], x[k], y[k])
		}
	case "GT":
		for k := range d {
			d[k] = sel32(a[k] > b[k], x[k], y[k])
		}
	case "GE":
		for k := range d {
			d[k] = sel32(a[k] >= b[k], x[k], y[k])
		}
	}
}

func cmpSelect64(d, a, b, x, y []float64, dir string) {
	a, b, x, y = a[:len(d)], b[:len(d)], x[:len(d)], y[:len(d)]
	switch dir {
	case "EQ":
		for k := range d {
			d[k] = sel64(a[k] == b[k], x[k], y[k])
		}
	case "NE":
		for k := range d {
			d[k] = sel64(a[k] != b[k], x[k], y[k])
		}
	case "LT":
		for k := range d {
			d[k] = sel64(a[k] < b[k], x[k], y[k])
		}
	case "LE":
		for k := range d {
			d[k] = sel64(a[k] <= b[k], x[k], y[k])
		}
	case "GT":
		for k := range d {
			d[k] = sel64(a[k] > b[k], x[k], y[k])
		}
	case "GE":
		for k := range d {
			d[k] = sel64(a[k] >= b[k], x[k], y[k])
		}
	}
}

// f32Bytes views little-endian f32 bytes as float32s where the host
// allows (nil otherwise).
func f32Bytes(b []byte) []float32 {
	if len(b) < 4 || !hostLittleEndian || uintptr(unsafe.Pointer(unsafe.SliceData(b)))%4 != 0 {
		return nil
	}
	return unsafe.Slice((*float32)(unsafe.Pointer(unsafe.SliceData(b))), len(b)/4)
}

// roundRow rounds float64 results to f32 where that is the node's type
// (float32 rows hold rounded values already).
func roundRow[T fnum](r []T, d dtype.DType) {
	if d != dtype.F32 {
		return
	}
	if r64, ok := any(r).([]float64); ok {
		for k, v := range r64 {
			r64[k] = float64(float32(v))
		}
	}
}

func compareRow[T fnum](dst, x, y []T, dir string) {
	y = y[:len(x)]
	dst = dst[:len(x)]
	switch dir {
	case "EQ":
		for k, v := range x {
			dst[k] = f2b[T](v == y[k])
		}
	case "NE":
		for k, v := range x {
			dst[k] = f2b[T](v != y[k])
		}
	case "LT":
		for k, v := range x {
			dst[k] = f2b[T](v < y[k])
		}
	case "LE":
		for k, v := range x {
			dst[k] = f2b[T](v <= y[k])
		}
	case "GT":
		for k, v := range x {
			dst[k] = f2b[T](v > y[k])
		}
	case "GE":
		for k, v := range x {
			dst[k] = f2b[T](v >= y[k])
		}
	}
}

// loadRow decodes elements [c, c+len(dst)) of contiguous data.
func loadRow[T fnum](dst []T, data []byte, d dtype.DType, c int64) {
	switch d {
	case dtype.F32:
		b := data[4*c : 4*(c+int64(len(dst)))]
		if d32, ok := any(dst).([]float32); ok {
			if v := f32Bytes(b); v != nil {
				copy(d32, v)
				return
			}
		}
		for k := range dst {
			dst[k] = T(math.Float32frombits(binary.LittleEndian.Uint32(b[4*k:])))
		}
	case dtype.F64:
		b := data[8*c : 8*(c+int64(len(dst)))]
		for k := range dst {
			dst[k] = T(math.Float64frombits(binary.LittleEndian.Uint64(b[8*k:])))
		}
	default:
		b := data[c : c+int64(len(dst))]
		for k := range dst {
			dst[k] = f2b[T](b[k] != 0)
		}
	}
}

// loadStrided decodes the elements of a leaf read through strides for
// output elements [c, c+len(dst)), in runs along the innermost (collapsed)
// dim: a fill where its stride is 0, a contiguous decode where it is 1.
func loadStrided[T fnum](dst []T, data []byte, d dtype.DType, shape, st, idx []int64, c int64) {
	r := len(shape)
	if r == 0 {
		v := loadAt[T](data, d, 0)
		for k := range dst {
			dst[k] = v
		}
		return
	}
	off, rem := int64(0), c
	for j := r - 1; j >= 0; j-- {
		idx[j] = rem % shape[j]
		rem /= shape[j]
		off += idx[j] * st[j]
	}
	inner, is := shape[r-1], st[r-1]
	for k := 0; k < len(dst); {
		run := min(int64(len(dst)-k), inner-idx[r-1])
		seg := dst[k : k+int(run)]
		switch is {
		case 0:
			v := loadAt[T](data, d, off)
			for q := range seg {
				seg[q] = v
			}
		case 1:
			loadRow(seg, data, d, off)
		default:
			for q := range seg {
				seg[q] = loadAt[T](data, d, off+int64(q)*is)
			}
		}
		k += int(run)
		off += is * run
		idx[r-1] += run
		for j := r - 1; j > 0 && idx[j] == shape[j]; j-- {
			off -= st[j] * shape[j]
			idx[j] = 0
			idx[j-1]++
			off += st[j-1]
		}
	}
}

func loadAt[T fnum](data []byte, d dtype.DType, off int64) T {
	switch d {
	case dtype.F32:
		return T(math.Float32frombits(binary.LittleEndian.Uint32(data[4*off:])))
	case dtype.F64:
		return T(math.Float64frombits(binary.LittleEndian.Uint64(data[8*off:])))
	}
	return f2b[T](data[off] != 0)
}

// collapseStrides drops unit dims and merges adjacent dims that a
// strided read walks as one (stride[i] == stride[i+1]*shape[i+1]).
func collapseStrides(shape, st []int64) ([]int64, []int64) {
	var cs, cst []int64
	for i, n := range shape {
		if n == 1 {
			continue
		}
		if k := len(cs) - 1; k >= 0 && cst[k] == st[i]*n {
			cs[k] *= n
			cst[k] = st[i]
			continue
		}
		cs = append(cs, n)
		cst = append(cst, st[i])
	}
	return cs, cst
}

// storeRow encodes values at elements [c, c+len(v)) of out.
func storeRow[T fnum](out []byte, d dtype.DType, c int, v []T) {
	switch d {
	case dtype.F32:
		b := out[4*c : 4*(c+len(v))]
		if v32, ok := any(v).([]float32); ok {
			if o := f32Bytes(b); o != nil {
				copy(o, v32)
				return
			}
		}
		for k, x := range v {
			binary.LittleEndian.PutUint32(b[4*k:], math.Float32bits(float32(x)))
		}
	case dtype.F64:
		b := out[8*c : 8*(c+len(v))]
		for k, x := range v {
			binary.LittleEndian.PutUint64(b[8*k:], math.Float64bits(float64(x)))
		}
	default:
		b := out[c : c+len(v)]
		for k, x := range v {
			b[k] = byte(b2i(x != 0))
		}
	}
}

// checkLeaf verifies that a leaf value has the planned type and size.
func checkLeaf(g *fusedGroup, nd *fuseNode, v Value) (*literal.Literal, error) {
	l, ok := v.(*literal.Literal)
	if !ok {
		return nil, fmt.Errorf("fusion into %s: operand is %T, want a tensor", g.root.Name, v)
	}
	want := g.n
	if nd.strides != nil {
		want = 1
		for d, st := range nd.strides {
			want += int(st * (g.shape[d] - 1))
		}
	}
	if l.DType != nd.dt || l.Len() < want || (nd.strides == nil && l.Len() != want) || len(l.Data) != l.Len()*nd.dt.Size() {
		return nil, fmt.Errorf("fusion into %s: operand %v does not have the planned type %v with %d elements", g.root.Name, l, nd.dt, g.n)
	}
	return l, nil
}
