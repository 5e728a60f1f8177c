package native

import (
	"encoding/binary"
	"fmt"
	"math"
	"runtime"
	"sync"

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

// fuseScratch is a worker's scratch: one row per node, and the odometer
// of strided leaves.
type fuseScratch struct {
	rows []float64
	idx  []int64
}

var scratchPool sync.Pool

func getScratch(nodes, rank int) *fuseScratch {
	s, _ := scratchPool.Get().(*fuseScratch)
	if s == nil {
		s = &fuseScratch{}
	}
	if cap(s.rows) < nodes*fuseChunk {
		s.rows = make([]float64, nodes*fuseChunk)
	}
	s.rows = s.rows[:nodes*fuseChunk]
	if cap(s.idx) < rank {
		s.idx = make([]int64, rank)
	}
	s.idx = s.idx[:rank]
	return s
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
	parallelRange(g.n, fuseGrain, func(lo, hi int) {
		s := getScratch(len(g.nodes), len(g.shape))
		defer scratchPool.Put(s)
		for i := range g.nodes {
			if nd := &g.nodes[i]; nd.kind == fkScalar {
				row := s.rows[i*fuseChunk : (i+1)*fuseChunk]
				for k := range row {
					row[k] = nd.scalar
				}
			}
		}
		for c := lo; c < hi; c += fuseChunk {
			m := min(fuseChunk, hi-c)
			for i := range g.nodes {
				fuseNodeChunk(g, i, leaves[i], s, c, m)
			}
			r := len(g.nodes) - 1
			storeRow(out, g.dt, c, s.rows[r*fuseChunk:r*fuseChunk+m])
		}
	})
}

func row(s *fuseScratch, i, m int) []float64 { return s.rows[i*fuseChunk : i*fuseChunk+m] }

// fuseNodeChunk computes node i for elements [c, c+m).
func fuseNodeChunk(g *fusedGroup, i int, leaf *literal.Literal, s *fuseScratch, c, m int) {
	nd := &g.nodes[i]
	dst := row(s, i, m)
	switch nd.kind {
	case fkScalar:
	case fkLeaf:
		if nd.strides == nil {
			loadRow(dst, leaf.Data, nd.dt, int64(c))
		} else {
			loadStrided(dst, leaf.Data, nd.dt, g.shape, nd.strides, s.idx, int64(c))
		}
	case fkUnary:
		x := row(s, nd.args[0], m)
		if nd.dt == dtype.Bool {
			for k, v := range x {
				dst[k] = f2b(nd.bun(v != 0))
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
				dst[k] = nd.un(v)
			}
		}
		roundRow(dst, nd.dt)
	case fkBinary:
		x, y := row(s, nd.args[0], m), row(s, nd.args[1], m)
		y = y[:len(x)]
		if nd.dt == dtype.Bool {
			for k, v := range x {
				dst[k] = f2b(nd.bbin(v != 0, y[k] != 0))
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
				dst[k] = nd.bin(v, y[k])
			}
		}
		roundRow(dst, nd.dt)
	case fkCompare:
		compareRow(dst, row(s, nd.args[0], m), row(s, nd.args[1], m), nd.cmp)
	case fkSelect:
		p, a, b := row(s, nd.args[0], m), row(s, nd.args[1], m), row(s, nd.args[2], m)
		for k := range dst {
			if p[k] != 0 {
				dst[k] = a[k]
			} else {
				dst[k] = b[k]
			}
		}
	case fkConvert:
		x := row(s, nd.args[0], m)
		if nd.dt == dtype.Bool {
			for k, v := range x {
				dst[k] = f2b(v != 0)
			}
			return
		}
		copy(dst, x)
		roundRow(dst, nd.dt)
	}
}

func f2b(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// roundRow rounds float64 results to f32 where that is the node's type.
func roundRow(r []float64, d dtype.DType) {
	if d == dtype.F32 {
		for k, v := range r {
			r[k] = float64(float32(v))
		}
	}
}

func compareRow(dst, x, y []float64, dir string) {
	y = y[:len(x)]
	switch dir {
	case "EQ":
		for k, v := range x {
			dst[k] = f2b(v == y[k])
		}
	case "NE":
		for k, v := range x {
			dst[k] = f2b(v != y[k])
		}
	case "LT":
		for k, v := range x {
			dst[k] = f2b(v < y[k])
		}
	case "LE":
		for k, v := range x {
			dst[k] = f2b(v <= y[k])
		}
	case "GT":
		for k, v := range x {
			dst[k] = f2b(v > y[k])
		}
	case "GE":
		for k, v := range x {
			dst[k] = f2b(v >= y[k])
		}
	}
}

// loadRow decodes elements [c, c+len(dst)) of contiguous data.
func loadRow(dst []float64, data []byte, d dtype.DType, c int64) {
	switch d {
	case dtype.F32:
		b := data[4*c : 4*(c+int64(len(dst)))]
		for k := range dst {
			dst[k] = float64(math.Float32frombits(binary.LittleEndian.Uint32(b[4*k:])))
		}
	case dtype.F64:
		b := data[8*c : 8*(c+int64(len(dst)))]
		for k := range dst {
			dst[k] = math.Float64frombits(binary.LittleEndian.Uint64(b[8*k:]))
		}
	default:
		b := data[c : c+int64(len(dst))]
		for k := range dst {
			dst[k] = f2b(b[k] != 0)
		}
	}
}

// loadStrided decodes the elements of a leaf read through per-dim strides
// for output elements [c, c+len(dst)) of an array of the given shape.
func loadStrided(dst []float64, data []byte, d dtype.DType, shape, st, idx []int64, c int64) {
	r := len(shape)
	off, rem := int64(0), c
	for j := r - 1; j >= 0; j-- {
		idx[j] = rem % shape[j]
		rem /= shape[j]
		off += idx[j] * st[j]
	}
	for k := range dst {
		switch d {
		case dtype.F32:
			dst[k] = float64(math.Float32frombits(binary.LittleEndian.Uint32(data[4*off:])))
		case dtype.F64:
			dst[k] = math.Float64frombits(binary.LittleEndian.Uint64(data[8*off:]))
		default:
			dst[k] = f2b(data[off] != 0)
		}
		if r == 0 {
			continue
		}
		j := r - 1
		idx[j]++
		off += st[j]
		for idx[j] == shape[j] && j > 0 {
			off -= st[j] * shape[j]
			idx[j] = 0
			j--
			idx[j]++
			off += st[j]
		}
	}
}

// storeRow encodes values at elements [c, c+len(v)) of out.
func storeRow(out []byte, d dtype.DType, c int, v []float64) {
	switch d {
	case dtype.F32:
		b := out[4*c : 4*(c+len(v))]
		for k, x := range v {
			binary.LittleEndian.PutUint32(b[4*k:], math.Float32bits(float32(x)))
		}
	case dtype.F64:
		b := out[8*c : 8*(c+len(v))]
		for k, x := range v {
			binary.LittleEndian.PutUint64(b[8*k:], math.Float64bits(x))
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
