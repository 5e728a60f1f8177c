package legalize

import (
	"fmt"
	"math"

	"github.com/torchtpu/torchtpu/dtype"
	"github.com/torchtpu/torchtpu/literal"
	"github.com/torchtpu/torchtpu/stablehlo"
)

// Bucketing of a shape-polymorphic program: a call whose ? dims are all
// n runs the program refined at a bucket B >= n, its inputs padded, its
// outputs sliced back, so that nearby sizes share one executable. Which
// dims follow the symbol is found by difference: the program refined at
// B and at 2B has the same ops; a dim of size B+c in one and 2B+c in the
// other is padded (its valid positions a prefix, n+c long), any other
// difference refuses (a dim 2B merging the symbol with a static dim, a
// constant computed from the size, which the program uses as a value).
// Then each op touching a padded dim must keep the valid positions
// exact: elementwise ops, broadcasts, transposes, reshapes keeping the
// dim whole, dot_general and reduce over it (the padded positions masked
// with 0 or the reduction's init value first, against the actual size,
// passed as one more argument), slices keeping it whole. Anything else
// refuses, with the reason: the call then runs at its exact shapes.

// padDims maps a value to its padded dims (dim → c, the dim is B+c).
type padDims map[*stablehlo.Value]map[int]int64

// Pad checks that mB (refined at B) and m2B (the same program refined at
// 2B) can run padded, and rewrites mB: masks before the ops that read
// across a padded dim, and one more argument (tensor<i64>, the actual
// size n) at the end of @main. It returns, for each result of @main, the
// padded dims and their constants (a result dim B+c is sliced to n+c).
func Pad(mB, m2B *stablehlo.Module, B int64) ([]map[int]int64, error) {
	fB, f2 := mB.Func("main"), m2B.Func("main")
	if fB == nil || f2 == nil || fB.Body.Entry() == nil || f2.Body.Entry() == nil {
		return nil, fmt.Errorf("pad: no @main")
	}
	if len(mB.Funcs) != 1 || len(m2B.Funcs) != 1 {
		return nil, fmt.Errorf("pad: the refined program has %d functions", len(mB.Funcs))
	}
	pa := &padAnalysis{B: B, dims: padDims{}}
	b1, b2 := fB.Body.Entry(), f2.Body.Entry()
	if len(b1.Args) != len(b2.Args) {
		return nil, fmt.Errorf("pad: the two refinements differ in arguments")
	}
	for i := range b1.Args {
		if err := pa.compareValue(b1.Args[i], b2.Args[i]); err != nil {
			return nil, fmt.Errorf("pad: argument %d: %w", i, err)
		}
	}
	if err := pa.block(b1, b2); err != nil {
		return nil, fmt.Errorf("pad: %w", err)
	}
	ret := b1.Ops[len(b1.Ops)-1]
	outs := make([]map[int]int64, len(ret.Operands))
	for i, v := range ret.Operands {
		outs[i] = pa.dims[v]
	}
	if err := pa.insertMasks(fB); err != nil {
		return nil, fmt.Errorf("pad: %w", err)
	}
	return outs, nil
}

type maskAt struct {
	operand int
	dims    map[int]int64 // dim → c: positions >= n+c are masked
	fill    *literal.Literal
}

type padAnalysis struct {
	B     int64
	dims  padDims
	masks map[*stablehlo.Op][]maskAt
}

// compareValue records v's padded dims from its two refinements.
func (pa *padAnalysis) compareValue(v1, v2 *stablehlo.Value) error {
	t1, t2 := stablehlo.AsTensor(v1.Type), stablehlo.AsTensor(v2.Type)
	if t1 == nil || t2 == nil {
		if (t1 == nil) != (t2 == nil) {
			return fmt.Errorf("types %v and %v", v1.Type, v2.Type)
		}
		return nil
	}
	if t1.Rank() != t2.Rank() || !t1.Elem.Equal(t2.Elem) {
		return fmt.Errorf("types %v and %v", t1, t2)
	}
	for d := range t1.Shape {
		a, b := t1.Shape[d], t2.Shape[d]
		if a == b {
			continue
		}
		if b-a != pa.B || a-pa.B < -pa.B {
			return fmt.Errorf("dim %d is %d at B=%d and %d at 2B: not B plus a constant", d, a, pa.B, b)
		}
		if pa.dims[v1] == nil {
			pa.dims[v1] = map[int]int64{}
		}
		pa.dims[v1][d] = a - pa.B
	}
	return nil
}

func (pa *padAnalysis) block(b1, b2 *stablehlo.Block) error {
	if len(b1.Ops) != len(b2.Ops) {
		return fmt.Errorf("the two refinements have %d and %d ops", len(b1.Ops), len(b2.Ops))
	}
	for i, op := range b1.Ops {
		o2 := b2.Ops[i]
		if op.Name != o2.Name || len(op.Operands) != len(o2.Operands) || len(op.Results) != len(o2.Results) || len(op.Regions) != len(o2.Regions) {
			return fmt.Errorf("%s (%v): the two refinements differ here", op.Name, op.Loc)
		}
		for j := range op.Results {
			if err := pa.compareValue(op.Results[j], o2.Results[j]); err != nil {
				return fmt.Errorf("%s (%v): %w", op.Name, op.Loc, err)
			}
		}
		if op.Name == "stablehlo.constant" {
			l1, ok1 := denseValue(op)
			l2, ok2 := denseValue(o2)
			if ok1 != ok2 || (ok1 && !sameLiteral(l1, l2)) {
				return fmt.Errorf("constant (%v) computed from the size: the program uses it as a value", op.Loc)
			}
		}
		if err := pa.op(op, o2); err != nil {
			return fmt.Errorf("%s (%v): %w", op.Name, op.Loc, err)
		}
	}
	return nil
}

func sameLiteral(a, b *literal.Literal) bool {
	if a.DType != b.DType || len(a.Data) != len(b.Data) || !sameShape(a.Shape, b.Shape) {
		return false
	}
	for i := range a.Data {
		if a.Data[i] != b.Data[i] {
			return false
		}
	}
	return true
}

// elementwise ops: every operand of the result's shape.
var padElementwise = func() map[string]bool {
	m := map[string]bool{"stablehlo.compare": true, "stablehlo.select": true, "stablehlo.clamp": true,
		"stablehlo.convert": true, "stablehlo.is_finite": true, "stablehlo.abs": true, "stablehlo.real": true,
		"stablehlo.imag": true, "stablehlo.complex": true, "stablehlo.optimization_barrier": true}
	for _, n := range stablehlo.UnaryOps {
		m[n] = true
	}
	for _, n := range stablehlo.BinaryOps {
		m[n] = true
	}
	return m
}()

func (pa *padAnalysis) padded(v *stablehlo.Value) map[int]int64 { return pa.dims[v] }

// op checks one op of the program refined at B against its twin.
func (pa *padAnalysis) op(op, o2 *stablehlo.Op) error {
	anyPadded := false
	for _, v := range op.Operands {
		if len(pa.padded(v)) > 0 {
			anyPadded = true
		}
	}
	for _, v := range op.Results {
		if len(pa.padded(v)) > 0 {
			anyPadded = true
		}
	}
	if !anyPadded {
		return nil
	}
	switch {
	case op.Name == "func.return", op.Name == "stablehlo.iota", op.Name == "stablehlo.constant":
		return nil
	case padElementwise[op.Name]:
		res := pa.padded(op.Results[0])
		for _, v := range op.Operands {
			t := stablehlo.AsTensor(v.Type)
			if t == nil || t.Rank() == 0 {
				continue // a scalar operand (select's predicate, clamp's bounds)
			}
			if !sameDims(pa.padded(v), res) {
				return fmt.Errorf("operands disagree on the padded dims")
			}
		}
		return nil
	case op.Name == "stablehlo.bitcast_convert":
		t1, t2 := stablehlo.AsTensor(op.Operands[0].Type), stablehlo.AsTensor(op.Results[0].Type)
		if t1 == nil || t2 == nil || t1.Rank() != t2.Rank() || !sameDims(pa.padded(op.Operands[0]), pa.padded(op.Results[0])) {
			return fmt.Errorf("changes the rank of a padded tensor")
		}
		return nil
	case op.Name == "stablehlo.broadcast_in_dim":
		dims, _ := op.Ints("broadcast_dimensions")
		res := pa.padded(op.Results[0])
		for i, c := range pa.padded(op.Operands[0]) {
			if i >= len(dims) {
				return fmt.Errorf("bad broadcast_dimensions")
			}
			if rc, ok := res[int(dims[i])]; !ok || rc != c {
				return fmt.Errorf("a padded dim broadcast to another size")
			}
		}
		return nil
	case op.Name == "stablehlo.transpose":
		perm, _ := op.Ints("permutation")
		want := map[int]int64{}
		for i, p := range perm {
			if c, ok := pa.padded(op.Operands[0])[int(p)]; ok {
				want[i] = c
			}
		}
		if !sameDims(want, pa.padded(op.Results[0])) {
			return fmt.Errorf("transpose moves padded dims inconsistently")
		}
		return nil
	case op.Name == "stablehlo.reshape":
		return pa.reshape(op)
	case op.Name == "stablehlo.dot_general":
		return pa.dot(op)
	case op.Name == "stablehlo.reduce":
		return pa.reduce(op)
	case op.Name == "stablehlo.slice":
		return pa.slice(op)
	case op.Name == "stablehlo.concatenate":
		d, _ := op.Int("dimension")
		for _, v := range append(append([]*stablehlo.Value{}, op.Operands...), op.Results...) {
			if _, ok := pa.padded(v)[int(d)]; ok {
				return fmt.Errorf("concatenates along a padded dim")
			}
		}
		for _, v := range op.Operands {
			if !sameDims(pa.padded(v), pa.padded(op.Results[0])) {
				return fmt.Errorf("pieces disagree on the padded dims")
			}
		}
		return nil
	case op.Name == "stablehlo.pad":
		lo, _ := op.Ints("edge_padding_low")
		hi, _ := op.Ints("edge_padding_high")
		in, _ := op.Ints("interior_padding")
		for d := range pa.padded(op.Operands[0]) {
			if d >= len(lo) || lo[d] != 0 || hi[d] != 0 || in[d] != 0 {
				return fmt.Errorf("pads a padded dim")
			}
		}
		return nil
	case op.Name == "stablehlo.sort":
		d, _ := op.Int("dimension")
		for _, v := range op.Operands {
			if _, ok := pa.padded(v)[int(d)]; ok {
				return fmt.Errorf("sorts along a padded dim")
			}
		}
		return nil
	}
	return fmt.Errorf("is not known to keep the valid positions of a padded dim")
}

func sameDims(a, b map[int]int64) bool {
	if len(a) != len(b) {
		return false
	}
	for d, c := range a {
		if bc, ok := b[d]; !ok || bc != c {
			return false
		}
	}
	return true
}

// reshape keeps each padded dim whole: the dims before it hold as many
// elements in the operand as before its image in the result.
func (pa *padAnalysis) reshape(op *stablehlo.Op) error {
	in, out := stablehlo.AsTensor(op.Operands[0].Type), stablehlo.AsTensor(op.Results[0].Type)
	if in == nil || out == nil {
		return fmt.Errorf("non-tensor reshape")
	}
	prefix := func(shape []int64, d int) int64 {
		p := int64(1)
		for _, n := range shape[:d] {
			p *= n
		}
		return p
	}
	want := map[int]int64{}
	for d, c := range pa.padded(op.Operands[0]) {
		found := false
		for q := range out.Shape {
			if out.Shape[q] == in.Shape[d] && prefix(out.Shape, q) == prefix(in.Shape, d) {
				want[q], found = c, true
				break
			}
		}
		if !found {
			return fmt.Errorf("merges a padded dim with others")
		}
	}
	if !sameDims(want, pa.padded(op.Results[0])) {
		return fmt.Errorf("reshape moves padded dims inconsistently")
	}
	return nil
}

func (pa *padAnalysis) dot(op *stablehlo.Op) error {
	dd, ok := op.Attr("dot_dimension_numbers").(*stablehlo.DotDims)
	if !ok {
		return fmt.Errorf("no dot_dimension_numbers")
	}
	lp, rp := pa.padded(op.Operands[0]), pa.padded(op.Operands[1])
	lm, rm := map[int]int64{}, map[int]int64{}
	for i := range dd.LhsContractingDims {
		l, r := int(dd.LhsContractingDims[i]), int(dd.RhsContractingDims[i])
		lc, lok := lp[l]
		rc, rok := rp[r]
		if lok != rok || lc != rc {
			return fmt.Errorf("contracted dims disagree in padding")
		}
		if lok {
			lm[l], rm[r] = lc, rc
		}
	}
	for i := range dd.LhsBatchingDims {
		l, r := int(dd.LhsBatchingDims[i]), int(dd.RhsBatchingDims[i])
		lc, lok := lp[l]
		rc, rok := rp[r]
		if lok != rok || lc != rc {
			return fmt.Errorf("batch dims disagree in padding")
		}
	}
	if len(lm) > 0 {
		pa.addMask(op, maskAt{operand: 0, dims: lm, fill: zeroOf(op.Operands[0])})
		pa.addMask(op, maskAt{operand: 1, dims: rm, fill: zeroOf(op.Operands[1])})
	}
	return nil
}

func (pa *padAnalysis) addMask(op *stablehlo.Op, m maskAt) {
	if pa.masks == nil {
		pa.masks = map[*stablehlo.Op][]maskAt{}
	}
	pa.masks[op] = append(pa.masks[op], m)
}

func zeroOf(v *stablehlo.Value) *literal.Literal {
	t := stablehlo.AsTensor(v.Type)
	l, _ := literal.New(t.DType(), nil)
	return l
}

// reduce masks each input with its init value along the reduced padded
// dims (the init is the reduction's identity, as every frontend writes
// it); the inits must be constants.
func (pa *padAnalysis) reduce(op *stablehlo.Op) error {
	n := len(op.Operands) / 2
	dims, _ := op.Ints("dimensions")
	red := map[int]bool{}
	for _, d := range dims {
		red[int(d)] = true
	}
	for i := 0; i < n; i++ {
		m := map[int]int64{}
		for d, c := range pa.padded(op.Operands[i]) {
			if red[d] {
				m[d] = c
			}
		}
		if len(m) == 0 {
			continue
		}
		init, ok := denseValue(op.Operands[n+i].Def)
		if !ok || init.Len() != 1 {
			return fmt.Errorf("reduces a padded dim with an init value that is not a constant")
		}
		pa.addMask(op, maskAt{operand: i, dims: m, fill: init})
	}
	return nil
}

// slice keeps a padded dim whole.
func (pa *padAnalysis) slice(op *stablehlo.Op) error {
	start, _ := op.Ints("start_indices")
	limit, _ := op.Ints("limit_indices")
	strides, _ := op.Ints("strides")
	in := stablehlo.AsTensor(op.Operands[0].Type)
	for d := range pa.padded(op.Operands[0]) {
		if d >= len(start) || start[d] != 0 || limit[d] != in.Shape[d] || (len(strides) > d && strides[d] != 1) {
			return fmt.Errorf("slices a padded dim other than whole")
		}
	}
	if !sameDims(pa.padded(op.Operands[0]), pa.padded(op.Results[0])) {
		return fmt.Errorf("slice changes the padded dims")
	}
	return nil
}

// insertMasks adds @main's size argument and, before each masked op,
// select(iota < n + c, x, fill) on its masked operands.
func (pa *padAnalysis) insertMasks(f *stablehlo.Func) error {
	blk := f.Body.Entry()
	nArg := &stablehlo.Value{Type: stablehlo.Tensor(dtype.I64), Index: len(blk.Args)}
	blk.Args = append(blk.Args, nArg)
	f.Type.Inputs = append(f.Type.Inputs, nArg.Type)
	if len(f.ArgAttrs) > 0 {
		f.ArgAttrs = append(f.ArgAttrs, nil)
	}
	var out []*stablehlo.Op
	for _, op := range blk.Ops {
		for _, m := range pa.masks[op] {
			fb := stablehlo.NewOpsBuilder(op.Loc)
			x := op.Operands[m.operand]
			t := stablehlo.AsTensor(x.Type)
			var keep *stablehlo.Value
			for d, c := range m.dims {
				lim := nArg
				if c != 0 {
					lim = fb.Add(nArg, fb.ScalarInt(dtype.I64, c))
				}
				k := fb.Compare("LT", fb.Iota(stablehlo.Tensor(dtype.I64, t.Shape...), int64(d)), fb.BroadcastInDim(lim, t.Shape, nil), "SIGNED")
				if keep == nil {
					keep = k
				} else {
					keep = fb.And(keep, k)
				}
			}
			fill := fb.BroadcastInDim(fb.Constant(m.fill), t.Shape, nil)
			masked := fb.Select(keep, x, fill)
			if err := fb.Err(); err != nil {
				return err
			}
			out = append(out, fb.Ops()...)
			op.Operands[m.operand] = masked
		}
		out = append(out, op)
	}
	blk.Ops = out
	return nil
}

// Bucket is the pow2 bucket of n (the default policy of a polymorphic
// program on a PJRT device).
func Bucket(n int64) int64 {
	if n <= 1 {
		return n
	}
	if n > math.MaxInt64/4 {
		return n
	}
	b := int64(1)
	for b < n {
		b <<= 1
	}
	return b
}
