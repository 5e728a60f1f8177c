package legalize

import (
	"fmt"

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
