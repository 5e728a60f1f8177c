package stablehlo

import (
	"fmt"
	"strings"
)

// Ops with regions. Each checks its operands before running body
// callbacks, and returns a slice of the documented length even on error.

func scalarTypes(vs []*Value) []Type {
	out := make([]Type, len(vs))
	for i, v := range vs {
		if t := tensorOf(v); t != nil {
			out[i] = scalarOf(t.Elem)
		}
	}
	return out
}

// Combiner returns a body that folds each accumulator with its element by
// the named binary op ("stablehlo.add", "add", "maximum", ...): for n
// operands the body has args (acc_0..acc_n-1, x_0..x_n-1).
func Combiner(op string) BodyFunc {
	if op != "" && !strings.Contains(op, ".") {
		op = "stablehlo." + op
	}
	return func(b *FuncBuilder, args []*Value) []*Value {
		n := len(args) / 2
		out := make([]*Value, n)
		for i := range out {
			out[i] = b.one(op, []*Value{args[i], args[n+i]})
		}
		return out
	}
}

// Reduce reduces inputs over dims with init values and a body of 2n scalar
// arguments (accumulators then elements); it returns n results.
func (fb *FuncBuilder) Reduce(inputs, inits []*Value, dims []int64, body BodyFunc) []*Value {
	out := make([]*Value, len(inputs))
	ops := append(append([]*Value{}, inputs...), inits...)
	if !fb.checkOperands("stablehlo.reduce", ops) {
		return out
	}
	r := fb.Region(append(scalarTypes(inits), scalarTypes(inits)...), body)
	copy(out, fb.Op("stablehlo.reduce", ops, []NamedAttr{{"dimensions", I64s(dims...)}}, r))
	return out
}

// ReduceWith reduces one input over dims with a named combiner op.
func (fb *FuncBuilder) ReduceWith(x, init *Value, dims []int64, combiner string) *Value {
	return fb.Reduce([]*Value{x}, []*Value{init}, dims, Combiner(combiner))[0]
}

// Window describes a reduce_window / select_and_scatter window. Nil
// slices mean the defaults (strides and dilations 1, padding 0).
type Window struct {
	Dimensions      []int64
	Strides         []int64
	BaseDilations   []int64
	WindowDilations []int64
	Padding         [][2]int64
}

func (w Window) attrs(withDilations bool) []NamedAttr {
	n := len(w.Dimensions)
	or := func(v []int64) []int64 {
		if v == nil {
			return filled(n, 1)
		}
		return v
	}
	pad := w.Padding
	if pad == nil {
		pad = make([][2]int64, n)
	}
	a := []NamedAttr{
		{"padding", PaddingAttr(pad)},
		{"window_dimensions", I64s(w.Dimensions...)},
		{"window_strides", I64s(or(w.Strides)...)},
	}
	if withDilations {
		a = append(a, NamedAttr{"base_dilations", I64s(or(w.BaseDilations)...)},
			NamedAttr{"window_dilations", I64s(or(w.WindowDilations)...)})
	}
	return a
}

// ReduceWindow reduces sliding windows of inputs (pooling).
func (fb *FuncBuilder) ReduceWindow(inputs, inits []*Value, w Window, body BodyFunc) []*Value {
	out := make([]*Value, len(inputs))
	ops := append(append([]*Value{}, inputs...), inits...)
	if !fb.checkOperands("stablehlo.reduce_window", ops) {
		return out
	}
	r := fb.Region(append(scalarTypes(inits), scalarTypes(inits)...), body)
	copy(out, fb.Op("stablehlo.reduce_window", ops, w.attrs(true), r))
	return out
}

// SelectAndScatter scatters source into windows of operand at the element
// chosen by sel (two scalars -> tensor<i1>), combining with scatter.
// Window dilations are not part of this op.
func (fb *FuncBuilder) SelectAndScatter(operand, source, init *Value, w Window, sel, scatter BodyFunc) *Value {
	ops := []*Value{operand, source, init}
	if !fb.checkOperands("stablehlo.select_and_scatter", ops) {
		return nil
	}
	st := scalarTypes([]*Value{operand, operand})
	it := scalarTypes([]*Value{init, init})
	r1 := fb.Region(st, sel)
	r2 := fb.Region(it, scatter)
	return fb.first("stablehlo.select_and_scatter", fb.Op("stablehlo.select_and_scatter", ops, w.attrs(false), r1, r2))
}

func (fb *FuncBuilder) first(name string, rs []*Value) *Value {
	if len(rs) == 0 {
		return nil
	}
	if len(rs) != 1 {
		fb.b.fail(fmt.Errorf("stablehlo: build %s: has %d results, want 1", name, len(rs)))
		return nil
	}
	return rs[0]
}

// Sort sorts inputs together along dim with a comparator of 2n scalars
// (lhs_0, rhs_0, lhs_1, rhs_1, ...) returning tensor<i1> "lhs before rhs".
func (fb *FuncBuilder) Sort(inputs []*Value, dim int64, stable bool, cmp BodyFunc) []*Value {
	out := make([]*Value, len(inputs))
	if !fb.checkOperands("stablehlo.sort", inputs) {
		return out
	}
	var args []Type
	for _, t := range scalarTypes(inputs) {
		args = append(args, t, t)
	}
	r := fb.Region(args, cmp)
	attrs := []NamedAttr{{"dimension", I64(dim)}, {"is_stable", BoolAttr(stable)}}
	copy(out, fb.Op("stablehlo.sort", inputs, attrs, r))
	return out
}

// Gather gathers slices of sliceSizes at startIndices.
func (fb *FuncBuilder) Gather(operand, startIndices *Value, dims GatherDims, sliceSizes []int64, sorted bool) *Value {
	d := GatherDims{ints(dims.OffsetDims), ints(dims.CollapsedSliceDims), ints(dims.OperandBatchingDims),
		ints(dims.StartIndicesBatchingDims), ints(dims.StartIndexMap), dims.IndexVectorDim}
	return fb.one("stablehlo.gather", []*Value{operand, startIndices},
		NamedAttr{"dimension_numbers", &d}, NamedAttr{"indices_are_sorted", BoolAttr(sorted)},
		NamedAttr{"slice_sizes", I64s(sliceSizes...)})
}

// Scatter writes updates into inputs at indices, combining old and new
// values with update (2n scalars: olds then news; nil body means replace).
func (fb *FuncBuilder) Scatter(inputs []*Value, indices *Value, updates []*Value, dims ScatterDims, sorted, unique bool, update BodyFunc) []*Value {
	out := make([]*Value, len(inputs))
	ops := append(append(append([]*Value{}, inputs...), indices), updates...)
	if !fb.checkOperands("stablehlo.scatter", ops) {
		return out
	}
	if update == nil {
		update = func(_ *FuncBuilder, args []*Value) []*Value { return args[len(args)/2:] }
	}
	r := fb.Region(append(scalarTypes(inputs), scalarTypes(updates)...), update)
	d := ScatterDims{ints(dims.UpdateWindowDims), ints(dims.InsertedWindowDims), ints(dims.InputBatchingDims),
		ints(dims.ScatterIndicesBatchingDims), ints(dims.ScatterDimsToOperandDims), dims.IndexVectorDim}
	attrs := []NamedAttr{{"indices_are_sorted", BoolAttr(sorted)}, {"scatter_dimension_numbers", &d},
		{"unique_indices", BoolAttr(unique)}}
	copy(out, fb.Op("stablehlo.scatter", ops, attrs, r))
	return out
}

// While loops: cond receives the loop values and returns one tensor<i1>;
// body receives them and returns their next values.
func (fb *FuncBuilder) While(inits []*Value, cond, body BodyFunc) []*Value {
	out := make([]*Value, len(inits))
	if !fb.checkOperands("stablehlo.while", inits) {
		return out
	}
	ts := valueTypes(inits)
	rc := fb.Region(ts, cond)
	rb := fb.Region(ts, body)
	copy(out, fb.Op("stablehlo.while", inits, nil, rc, rb))
	return out
}

// If runs then or else (no arguments) on a tensor<i1> predicate; both
// branches must return values of the same types, n of them.
func (fb *FuncBuilder) If(pred *Value, n int, then, els BodyFunc) []*Value {
	return fb.branches("stablehlo.if", pred, n, []BodyFunc{then, els})
}

// Case runs branches[index] (out of range: the last) on a tensor<i32>.
func (fb *FuncBuilder) Case(index *Value, n int, branches ...BodyFunc) []*Value {
	return fb.branches("stablehlo.case", index, n, branches)
}

func (fb *FuncBuilder) branches(name string, sel *Value, n int, bodies []BodyFunc) []*Value {
	out := make([]*Value, n)
	if !fb.checkOperands(name, []*Value{sel}) {
		return out
	}
	rs := make([]*Region, len(bodies))
	for i, body := range bodies {
		rs[i] = fb.Region(nil, body)
	}
	res := fb.Op(name, []*Value{sel}, nil, rs...)
	if res != nil && len(res) != n {
		fb.b.fail(fmt.Errorf("stablehlo: build %s: branches return %d values, caller expects %d", name, len(res), n))
		return out
	}
	copy(out, res)
	return out
}

// Call calls a function of the module (defined before or after; its result
// types are taken from results, or from the callee when already built).
func (fb *FuncBuilder) Call(callee string, args []*Value, results ...Type) []*Value {
	if results == nil {
		if f := fb.b.m.Func(callee); f != nil && f.Type != nil {
			results = f.Type.Results
		}
	}
	return fb.OpTyped("func.call", args, results, []NamedAttr{{"callee", SymbolRefAttr(callee)}})
}
