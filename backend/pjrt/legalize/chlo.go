package legalize

import (
	"fmt"

	"github.com/torchtpu/torchtpu/dtype"
	"github.com/torchtpu/torchtpu/stablehlo"
)

// Ops the plugin refuses, rewritten to StableHLO it compiles. Each row
// names its Target.Ops key (the plugin's list, target.go) and the ops it
// matches; a row whose key the target does not list is skipped.

type opRewrite struct {
	key     string
	match   func(op *stablehlo.Op) bool
	rewrite func(op *stablehlo.Op) ([]*stablehlo.Op, []*stablehlo.Value, error)
}

var opRewrites []opRewrite

func init() {
	opRewrites = []opRewrite{
		{"chlo.mulhi", named("chlo.mulhi"), rewriteMulhi},
		{"chlo.scan", named("chlo.scan"), rewriteScan},
		{"chlo.ragged_dot", named("chlo.ragged_dot"), rewriteRaggedDot},
		{"stablehlo.sign/unsigned", func(op *stablehlo.Op) bool {
			return op.Name == "stablehlo.sign" && elemOf(op, 0).IsUnsigned()
		}, rewriteSignUnsigned},
		{"stablehlo.cbrt/complex", func(op *stablehlo.Op) bool {
			return op.Name == "stablehlo.cbrt" && elemOf(op, 0).IsComplex()
		}, rewriteCbrtComplex},
	}
}

func named(name string) func(*stablehlo.Op) bool {
	return func(op *stablehlo.Op) bool { return op.Name == name }
}

// elemOf is the element dtype of operand i (Invalid when not a tensor).
func elemOf(op *stablehlo.Op, i int) dtype.DType {
	if i >= len(op.Operands) {
		return dtype.Invalid
	}
	if t := stablehlo.AsTensor(op.Operands[i].Type); t != nil {
		return t.DType()
	}
	return dtype.Invalid
}

func (s *State) rewriteFor(op *stablehlo.Op) *opRewrite {
	for i := range opRewrites {
		r := &opRewrites[i]
		if _, lacks := s.Target.Ops[r.key]; lacks && r.match(op) {
			return r
		}
	}
	return nil
}

func needChlo(s *State) bool {
	return anyOp(s.Module, func(op *stablehlo.Op) bool { return s.rewriteFor(op) != nil })
}

func runChlo(s *State) error {
	r := newRewriter(func(op *stablehlo.Op) ([]*stablehlo.Op, []*stablehlo.Value, error) {
		rw := s.rewriteFor(op)
		if rw == nil {
			return nil, nil, nil
		}
		return rw.rewrite(op)
	})
	if err := r.funcs(s.Module); err != nil {
		return err
	}
	s.changed = s.changed || r.changed
	return nil
}

func one(fb *stablehlo.FuncBuilder, v *stablehlo.Value) ([]*stablehlo.Op, []*stablehlo.Value, error) {
	if err := fb.Err(); err != nil {
		return nil, nil, err
	}
	return fb.Ops(), []*stablehlo.Value{v}, nil
}

// rewriteSignUnsigned: sign of an unsigned integer is x != 0.
func rewriteSignUnsigned(op *stablehlo.Op) ([]*stablehlo.Op, []*stablehlo.Value, error) {
	fb := stablehlo.NewOpsBuilder(op.Loc)
	x := op.Operands[0]
	d := elemOf(op, 0)
	zero := fb.BroadcastInDim(fb.ScalarInt(d, 0), shapeOf(x), nil)
	return one(fb, fb.Convert(fb.Compare("NE", x, zero, "UNSIGNED"), d))
}

// rewriteCbrtComplex: the cube root of a complex number is z^(1/3), as
// the native backend computes it.
func rewriteCbrtComplex(op *stablehlo.Op) ([]*stablehlo.Op, []*stablehlo.Value, error) {
	fb := stablehlo.NewOpsBuilder(op.Loc)
	x := op.Operands[0]
	d := elemOf(op, 0)
	part := dtype.F64
	if d == dtype.C64 {
		part = dtype.F32
	}
	third := fb.Complex(fb.Full(part, nil, 1.0/3), fb.Full(part, nil, 0))
	return one(fb, fb.Pow(x, fb.BroadcastInDim(third, shapeOf(x), nil)))
}

// rewriteMulhi: the high half of the full product. Up to 32 bits the
// product is exact in 64 bits; 64-bit operands are split in 32-bit halves
// (the unsigned high word, corrected for negative signed operands).
func rewriteMulhi(op *stablehlo.Op) ([]*stablehlo.Op, []*stablehlo.Value, error) {
	if len(op.Operands) != 2 {
		return nil, nil, fmt.Errorf("chlo.mulhi with %d operands", len(op.Operands))
	}
	fb := stablehlo.NewOpsBuilder(op.Loc)
	a, b := op.Operands[0], op.Operands[1]
	d := elemOf(op, 0)
	shape := shapeOf(a)
	if !d.IsInteger() {
		return nil, nil, fmt.Errorf("chlo.mulhi of %v", d)
	}
	w := int64(d.Bits())
	if w < 64 {
		wide := dtype.I64
		if d.IsUnsigned() {
			wide = dtype.U64
		}
		p := fb.Mul(fb.Convert(a, wide), fb.Convert(b, wide))
		sh := fb.BroadcastInDim(fb.ScalarInt(wide, w), shape, nil)
		if d.IsUnsigned() {
			p = fb.ShiftRightLogical(p, sh)
		} else {
			p = fb.ShiftRightArithmetic(p, sh)
		}
		return one(fb, fb.Convert(p, d))
	}
	u := dtype.U64
	ua, ub := a, b
	if d.IsSigned() {
		ua, ub = fb.BitcastConvert(a, u), fb.BitcastConvert(b, u)
	}
	c := func(v int64) *stablehlo.Value { return fb.BroadcastInDim(fb.ScalarInt(u, v), shape, nil) }
	mask := c(0xffffffff)
	sh := c(32)
	al, ah := fb.And(ua, mask), fb.ShiftRightLogical(ua, sh)
	bl, bh := fb.And(ub, mask), fb.ShiftRightLogical(ub, sh)
	ll, lh, hl, hh := fb.Mul(al, bl), fb.Mul(al, bh), fb.Mul(ah, bl), fb.Mul(ah, bh)
	mid := fb.Add(fb.Add(fb.ShiftRightLogical(ll, sh), fb.And(lh, mask)), fb.And(hl, mask))
	hi := fb.Add(fb.Add(hh, fb.ShiftRightLogical(lh, sh)), fb.Add(fb.ShiftRightLogical(hl, sh), fb.ShiftRightLogical(mid, sh)))
	if d.IsSigned() {
		zero := fb.BroadcastInDim(fb.ScalarInt(d, 0), shape, nil)
		hi = fb.Select(fb.Compare("LT", a, zero, "SIGNED"), fb.Sub(hi, ub), hi)
		hi = fb.Select(fb.Compare("LT", b, zero, "SIGNED"), fb.Sub(hi, ua), hi)
		hi = fb.BitcastConvert(hi, d)
	}
	return one(fb, hi)
}
