package native

import (
	"fmt"
	"runtime"
	"sync"
	"unsafe"

	"github.com/torchtpu/torchtpu/dtype"
	"github.com/torchtpu/torchtpu/literal"
)

// Evaluation of a fusion group: the output is cut into chunks of
// fuseChunk elements; for each chunk every node of the group computes its
// values into a scratch row (float64 with f32 values rounded after each
// op, or float32 for all-f32 groups, so that each element is bit for bit
// what the unfused kernels produce; rows in fuse_rows.go), and the
// root's row is stored. Large groups split their chunks over goroutines;
// each output element is computed by one goroutine in a fixed order, so
// results do not depend on the thread count.

const fuseChunk = 256

// fuseGrain is the element count per goroutine from which a group runs in
// parallel.
const fuseGrain = 1 << 13

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
