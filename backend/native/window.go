package native

// reduce_window and select_and_scatter.

import (
	"fmt"
	"slices"

	"github.com/torchtpu/torchtpu/literal"
	"github.com/torchtpu/torchtpu/stablehlo"
)

func init() {
	register("stablehlo.reduce_window", evalReduceWindow)
	register("stablehlo.select_and_scatter", evalSelectAndScatter)
}

// windowSpec is the window of a reduce_window or select_and_scatter, one
// entry per dim.
type windowSpec struct {
	size, stride, baseDil, winDil, padLo, padHi []int64
}

// windowSpecs keeps each op's window, read once (callers only read it):
// read per call, a pooling op's attributes were 2 KB of allocation.
var windowSpecs opCache[*windowSpec]

// readWindowSpec returns op's window for an operand of the given rank (the
// same *windowSpec on each call: not to be modified).
func readWindowSpec(op *stablehlo.Op, rank int) (*windowSpec, error) {
	if w, ok := windowSpecs.get(op); ok && len(w.size) == rank {
		return w, nil
	}
	w, err := parseWindowSpec(op, rank)
	if err == nil {
		windowSpecs.put(op, w)
	}
	return w, err
}

func parseWindowSpec(op *stablehlo.Op, rank int) (*windowSpec, error) {
	w := &windowSpec{}
	get := func(name string, def int64, min int64) ([]int64, error) {
		v, ok := op.Ints(name)
		if !ok {
			if op.Attr(name) != nil {
				return nil, fmt.Errorf("%s: %s is not an integer list", op.Name, name)
			}
			v = make([]int64, rank)
			for i := range v {
				v[i] = def
			}
		}
		if len(v) != rank {
			return nil, fmt.Errorf("%s: %s has %d entries, want %d", op.Name, name, len(v), rank)
		}
		for _, x := range v {
			if x < min {
				return nil, fmt.Errorf("%s: %s %v must be at least %d", op.Name, name, v, min)
			}
		}
		return v, nil
	}
	var err error
	if op.Attr("window_dimensions") == nil {
		return nil, fmt.Errorf("%s: missing window_dimensions", op.Name)
	}
	if w.size, err = get("window_dimensions", 1, 1); err != nil {
		return nil, err
	}
	if w.stride, err = get("window_strides", 1, 1); err != nil {
		return nil, err
	}
	if w.baseDil, err = get("base_dilations", 1, 1); err != nil {
		return nil, err
	}
	if w.winDil, err = get("window_dilations", 1, 1); err != nil {
		return nil, err
	}
	w.padLo, w.padHi = make([]int64, rank), make([]int64, rank)
	if a := op.Attr("padding"); a != nil {
		v, ok := stablehlo.AttrInts(a)
		if !ok || len(v) != 2*rank {
			return nil, fmt.Errorf("%s: padding must hold %dx2 integers", op.Name, rank)
		}
		for i := 0; i < rank; i++ {
			w.padLo[i], w.padHi[i] = v[2*i], v[2*i+1]
		}
	}
	return w, nil
}

// outShape is the number of windows per dim.
func (w *windowSpec) outShape(in []int64) []int64 {
	out := make([]int64, len(in))
	for d, n := range in {
		dil := int64(0)
		if n > 0 {
			dil = (n-1)*w.baseDil[d] + 1
		}
		padded := dil + w.padLo[d] + w.padHi[d]
		win := (w.size[d]-1)*w.winDil[d] + 1
		if padded < win {
			out[d] = 0
		} else {
			out[d] = (padded-win)/w.stride[d] + 1
		}
	}
	return out
}

// windowTables keeps each reduce_window op's table for its last shapes
// (kernels never write it): a small transformer's cumulative sum over 12
// positions built its table of 288 entries on every run, 5 µs of a
// 0.2 ms run.
var windowTables opCache[*windowTable]

type windowTable struct {
	in, out []int64
	tab     []int
}

// windowTableMax bounds the entries of a kept table.
const windowTableMax = 1 << 16

// cachedTable is table, kept per op (windowTables) where it is small.
func (w *windowSpec) cachedTable(op *stablehlo.Op, in, out []int64) []int {
	if e, ok := windowTables.get(op); ok && shapeEq(e.in, in) && shapeEq(e.out, out) {
		return e.tab
	}
	tab := w.table(in, out)
	if len(tab) <= windowTableMax {
		windowTables.put(op, &windowTable{in: slices.Clone(in), out: slices.Clone(out), tab: tab})
	}
	return tab
}

// table returns, for each (window, position in window), the flat input
// index it reads, or -1 for padding and dilation holes.
func (w *windowSpec) table(in, out []int64) []int {
	rank := len(in)
	per := make([][]int, rank)
	for d := 0; d < rank; d++ {
		o, k := int(out[d]), int(w.size[d])
		t := make([]int, o*k)
		for oi := 0; oi < o; oi++ {
			for ki := 0; ki < k; ki++ {
				pos := int64(oi)*w.stride[d] + int64(ki)*w.winDil[d] - w.padLo[d]
				idx := -1
				if pos >= 0 && pos%w.baseDil[d] == 0 && pos/w.baseDil[d] < in[d] {
					idx = int(pos / w.baseDil[d])
				}
				t[oi*k+ki] = idx
			}
		}
		per[d] = t
	}
	no, nk := elemCount(out), elemCount(w.size)
	tab := make([]int, no*nk)
	str := literal.Strides(in)
	oIdx := make([]int, rank)
	kIdx := make([]int, rank)
	for o := 0; o < no; o++ {
		rem := o
		for d := rank - 1; d >= 0; d-- {
			oIdx[d] = rem % int(out[d])
			rem /= int(out[d])
		}
		for k := 0; k < nk; k++ {
			rem := k
			for d := rank - 1; d >= 0; d-- {
				kIdx[d] = rem % int(w.size[d])
				rem /= int(w.size[d])
			}
			at := 0
			for d := 0; d < rank; d++ {
				v := per[d][oIdx[d]*int(w.size[d])+kIdx[d]]
				if v < 0 {
					at = -1
					break
				}
				at += v * int(str[d])
			}
			tab[o*nk+k] = at
		}
	}
	return tab
}

func evalReduceWindow(env Env, op *stablehlo.Op, in []Value) ([]Value, error) {
	inputs, inits, err := reduceOperands(op, in, func(inputs, inits []*literal.Literal, i int) error {
		if inits[i].Rank() != 0 || !reduceShapeEq(inputs[i].Shape, inputs[0].Shape) {
			return fmt.Errorf("%s: operands #%d (%v, init %v) do not match input %v", op.Name, i, inputs[i], inits[i], inputs[0])
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	n := len(inputs)
	if len(op.Regions) != 1 || op.Regions[0].Entry() == nil {
		return nil, fmt.Errorf("%s: want one body region", op.Name)
	}
	w, err := readWindowSpec(op, inputs[0].Rank())
	if err != nil {
		return nil, err
	}
	outShape := w.outShape(inputs[0].Shape)
	outs := make([]*literal.Literal, n)
	for i := range outs {
		if err := checkComputedShape(op, i, outShape); err != nil {
			return nil, err
		}
		if outs[i], err = literal.New(inits[i].DType, outShape); err != nil {
			return nil, fmt.Errorf("%s: %w", op.Name, err)
		}
	}
	tab := w.cachedTable(op, inputs[0].Shape, outShape)
	groups, size := elemCount(outShape), elemCount(w.size)
	body := op.Regions[0]
	if n == 1 && inputs[0].DType == inits[0].DType {
		if kind := binaryBody(body); kind != "" && windowFast(kind, inputs[0], inits[0], outs[0], groups, size, tab) {
			return []Value{outs[0]}, nil
		}
	}
	tabAt := func(flat int) int { return tab[flat] }
	if vals, ok := reduceScalar(body, inputs, inits, outs, groups, size, tabAt); ok {
		return vals, nil
	}
	return reduceRegion(env, op, body, inputs, inits, outs, groups, size, tabAt)
}

// windowFast folds windows given by a table (entries -1 read the init
// value) with a fast fold; false when none applies.
func windowFast(name string, input, init, out *literal.Literal, groups, size int, tab []int) bool {
	k, ok := foldOf(name)
	if !ok {
		return false
	}
	d := input.DType
	switch numClassOf(d) {
	case clsFloat:
		f := floatFold(k, d)
		if f == nil {
			return false
		}
		src := decodeFloats(input)
		start := init.Float64(0)
		res := make([]float64, groups)
		for g := range res {
			acc := start
			for _, at := range tab[g*size : (g+1)*size] {
				if at < 0 {
					acc = f(acc, start)
				} else {
					acc = f(acc, src[at])
				}
			}
			res[g] = acc
		}
		encodeFloats(out, res)
	case clsInt, clsBool:
		f := intFold(k, d)
		if f == nil {
			return false
		}
		src := decodeInts(input)
		start := init.Int64(0)
		res := make([]int64, groups)
		for g := range res {
			acc := start
			for _, at := range tab[g*size : (g+1)*size] {
				if at < 0 {
					acc = f(acc, start)
				} else {
					acc = f(acc, src[at])
				}
			}
			res[g] = wrapToWidth(d, acc)
		}
		encodeInts(out, res)
	default:
		return false
	}
	return true
}
