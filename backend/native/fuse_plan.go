package native

import (
	"math"

	"github.com/torchtpu/torchtpu/dtype"
	"github.com/torchtpu/torchtpu/literal"
	"github.com/torchtpu/torchtpu/stablehlo"
)

// Loop fusion (XLA's loop fusion, decided at plan time). Elementwise ops on
// f32, f64 and i1 tensors whose results are used only inside one fusion
// group join that group; broadcast_in_dim and splat constants feeding a
// group are read in place (strided or scalar leaves) instead of being
// materialized. A group runs as one loop over its output (fuse_exec.go),
// computing every element exactly as the unfused kernels do: in float64,
// rounded to the op's result type after each op.

type fuseKind uint8

const (
	fkLeaf      fuseKind = iota // a slot read with strides (nil: identity)
	fkScalar                    // a constant
	fkUnary                     // fns.f or fns.b on one operand
	fkBinary                    // fns.f or fns.b on two operands
	fkCompare                   // IEEE comparison of floats, i1 result
	fkSelect                    // pred ? a : b
	fkConvert                   // between f32, f64 and i1
	fkCmpSelect                 // compare(args 0, 1) ? args[2] : args[3]
	fkNop                       // a compare folded into its select
)

// fuseNode is one value of a fusion group. Nodes are in topological order;
// the last one is the group's result.
type fuseNode struct {
	kind    fuseKind
	dt      dtype.DType
	args    [4]int
	slot    int     // fkLeaf: the slot read
	strides []int64 // fkLeaf: element stride of the slot per output dim; nil: identity
	// cshape and cstrides are the output shape and strides with unit dims
	// dropped and dims read as one merged (collapseStrides).
	cshape, cstrides []int64
	// bcast is set for strided leaves whose inner (collapsed) dim is
	// repeated (stride 0; or rank 0): read one element per run of it.
	bcast  bool
	scalar float64 // fkScalar
	name   string  // op name (for the specialised loops)
	un     func(float64) float64
	// v32 and s32: the float32 forms of un for f32 nodes (package vmath)
	v32  vmathFn
	s32  func(float32) float32
	bin  func(float64, float64) float64
	bun  func(bool) bool
	bbin func(bool, bool) bool
	cmp  string // fkCompare direction
	// v2: for an fkBinary node that foldChains made of a chain of two
	// inputs (its name not an op's), the float32 form of bin over rows
	// (package vmath); bin computes it in float64 rows.
	v2 func(d, x, y []float32)
}

// fusedGroup is a planned fusion: nodes computing the value of slot out,
// of static shape, from leaf slots.
type fusedGroup struct {
	shape []int64
	n     int
	dt    dtype.DType
	nodes []fuseNode
	out   int
	root  *stablehlo.Op
	nops  int // ops fused (for statistics)
	// red is the reduce folding the group's values (input fusion), nil
	// when the group's result is materialized.
	red *reduceFuse
	// f32 is set when no node is f64: the loop then computes in float32.
	f32 bool
	// fw is the float width of the ops joined so far (planFusion): 4 or
	// 8, 0 before the first float op.
	fw int
	// period, when not 0, is where chunks end (at its multiples): the
	// shortest run of a broadcast leaf's inner dim, so that in each chunk
	// such a leaf reads one element or one contiguous run (fuse_exec.go).
	period int
	// inplace lists the leaf slots that the result may overwrite when they
	// die at this group: read only with identity indexing, same element
	// size.
	inplace []int
	// planes is the group's per-plane form (fuse_planes.go), nil if none.
	planes *planeOp
}

// fusibleDType is the set of element types the fused loops compute.
func fusibleDType(d dtype.DType) bool {
	return d == dtype.F32 || d == dtype.F64 || d == dtype.Bool
}

// staticType returns the static tensor type of v, or nil.
func staticType(v *stablehlo.Value) *stablehlo.TensorType {
	if v == nil {
		return nil
	}
	t := stablehlo.AsTensor(v.Type)
	if t == nil || !t.IsStatic() || t.Elem.Quant != nil {
		return nil
	}
	return t
}

// fusibleCompute reports whether op can be a member of a fusion group.
func fusibleCompute(op *stablehlo.Op) bool {
	if len(op.Results) != 1 || len(op.Regions) != 0 {
		return false
	}
	rt := staticType(op.Results[0])
	if rt == nil || !fusibleDType(rt.DType()) {
		return false
	}
	for _, v := range op.Operands {
		t := staticType(v)
		if t == nil || !fusibleDType(t.DType()) {
			return false
		}
	}
	isF := rt.DType().IsFloat()
	switch op.Name {
	case "stablehlo.compare":
		if len(op.Operands) != 2 {
			return false
		}
		ot := staticType(op.Operands[0])
		ct, _ := op.Enum("compare_type")
		dir, _ := op.Enum("comparison_direction")
		switch dir {
		case "EQ", "NE", "GE", "GT", "LE", "LT":
		default:
			return false
		}
		if !shapeEq(ot.Shape, rt.Shape) || staticType(op.Operands[1]).DType() != ot.DType() {
			return false
		}
		if ot.DType() == dtype.Bool {
			// equality of booleans (a logical not or xnor, as
			// aten's safe softmax tests its mask): 0/1 in the rows
			return (dir == "EQ" || dir == "NE") && (ct == "" || ct == "NOTYPE" || ct == "UNSIGNED")
		}
		return ot.DType().IsFloat() && (ct == "" || ct == "NOTYPE" || ct == "FLOAT")
	case "stablehlo.select":
		if len(op.Operands) != 3 {
			return false
		}
		p, a, b := staticType(op.Operands[0]), staticType(op.Operands[1]), staticType(op.Operands[2])
		return p.DType() == dtype.Bool && (len(p.Shape) == 0 || shapeEq(p.Shape, rt.Shape)) &&
			a.DType() == rt.DType() && b.DType() == rt.DType() && shapeEq(a.Shape, rt.Shape) && shapeEq(b.Shape, rt.Shape)
	case "stablehlo.convert":
		return len(op.Operands) == 1 && shapeEq(staticType(op.Operands[0]).Shape, rt.Shape)
	}
	if fns, ok := fusedUnary(op.Name); ok && len(op.Operands) == 1 {
		t := staticType(op.Operands[0])
		return t.DType() == rt.DType() && shapeEq(t.Shape, rt.Shape) && (isF && fns.f != nil || !isF && fns.b != nil)
	}
	if fns, ok := binaryTable[op.Name]; ok && len(op.Operands) == 2 {
		a, b := staticType(op.Operands[0]), staticType(op.Operands[1])
		return a.DType() == rt.DType() && b.DType() == rt.DType() && shapeEq(a.Shape, rt.Shape) &&
			shapeEq(b.Shape, rt.Shape) && (isF && fns.f != nil || !isF && fns.b != nil)
	}
	return false
}

// fusedUnary returns the functions of a unary elementwise op: those of
// the unary table, and abs on floats.
func fusedUnary(name string) (unaryFns, bool) {
	if name == "stablehlo.abs" {
		v := vmathOps[name]
		return unaryFns{f: math.Abs, v32: v.row, s32: v.scalar}, true
	}
	fns, ok := unaryTable[name]
	return fns, ok
}

// splatValue returns the value of a constant op holding one repeated
// element of a fusible type.
func splatValue(op *stablehlo.Op) (float64, bool) {
	if op.Name != "stablehlo.constant" || len(op.Results) != 1 {
		return 0, false
	}
	a, ok := op.Attr("value").(*stablehlo.DenseAttr)
	if !ok || a.Type == nil || a.Value == nil || a.Value.Len() < 1 || !fusibleDType(a.Type.DType()) || a.Value.DType != a.Type.DType() {
		return 0, false
	}
	if !a.Splat && a.Value.Len() != 1 {
		return 0, false
	}
	if a.Type.DType() == dtype.Bool {
		return float64(b2i(a.Value.Int64(0) != 0)), true
	}
	return a.Value.Float64(0), true
}

// broadcastStrides returns, for a broadcast_in_dim op, the element stride
// of its operand per result dim (0 where the operand is repeated).
//
// A transpose is read the same way: its result dim i walks operand dim
// permutation[i].
func broadcastStrides(op *stablehlo.Op) ([]int64, bool) {
	if op.Name == "stablehlo.transpose" {
		return transposeStrides(op)
	}
	if op.Name != "stablehlo.broadcast_in_dim" || len(op.Operands) != 1 || len(op.Results) != 1 {
		return nil, false
	}
	it, rt := staticType(op.Operands[0]), staticType(op.Results[0])
	if it == nil || rt == nil || !fusibleDType(it.DType()) || it.DType() != rt.DType() {
		return nil, false
	}
	dims, ok := op.Ints("broadcast_dimensions")
	if !ok || len(dims) != len(it.Shape) {
		return nil, false
	}
	st := make([]int64, len(rt.Shape))
	in := literal.Strides(it.Shape)
	for i, d := range dims {
		if d < 0 || int(d) >= len(rt.Shape) {
			return nil, false
		}
		switch it.Shape[i] {
		case rt.Shape[d]:
			st[d] += in[i]
		case 1:
		default:
			return nil, false
		}
	}
	return st, true
}

func transposeStrides(op *stablehlo.Op) ([]int64, bool) {
	perm, ok := transposePerm(op)
	if !ok {
		return nil, false
	}
	it := staticType(op.Operands[0])
	if !fusibleDType(it.DType()) || it.DType() != staticType(op.Results[0]).DType() {
		return nil, false
	}
	in := literal.Strides(it.Shape)
	st := make([]int64, len(perm))
	for i, p := range perm {
		st[i] = in[p]
	}
	return st, true
}

// transposePerm returns a well-formed transpose's permutation (of its
// operand's static shape to its result's).
func transposePerm(op *stablehlo.Op) ([]int64, bool) {
	if len(op.Operands) != 1 || len(op.Results) != 1 {
		return nil, false
	}
	perm, ok := op.Ints("permutation")
	it, rt := staticType(op.Operands[0]), staticType(op.Results[0])
	if !ok || it == nil || rt == nil || len(perm) != len(it.Shape) || len(perm) != len(rt.Shape) {
		return nil, false
	}
	seen := make([]bool, len(perm))
	for i, p := range perm {
		if p < 0 || int(p) >= len(perm) || seen[p] || it.Shape[p] != rt.Shape[i] {
			return nil, false
		}
		seen[p] = true
	}
	return perm, true
}
