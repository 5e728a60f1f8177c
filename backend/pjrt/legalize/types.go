package legalize

import (
	"fmt"
	"strings"

	"github.com/torchtpu/torchtpu/dtype"
	"github.com/torchtpu/torchtpu/literal"
	"github.com/torchtpu/torchtpu/stablehlo"
)

// Element types the plugin cannot transfer or compute (Target.Types):
//
//   - sub-byte integers (i2, i4, ui2, ui4) the plugin computes but cannot
//     transfer: @main takes and returns them in i8/ui8 (converted inside;
//     the host relabels the same bytes, literal.Literal storing sub-byte
//     values one per byte, sign-extended);
//   - small floats it cannot compile (f4E2M1FN, f6*, f8E3M4, ...): every
//     value of the type is carried in f32, holding exactly the narrow
//     value; an op that computes a new value of the type rounds its f32
//     result to the type (reduce_precision, exact for the IEEE-like
//     formats); for the other formats only ops that move, compare or
//     convert their values out are allowed, anything else is a clear error
//     naming the type. The host converts @main's arguments and results.
//
// State.Edges records, per argument and result of @main, the type the
// caller gives or wants when it differs from what the device sees.

// Edges says how @main's arguments and results are carried: Args[i] (or
// Results[i]) is the caller's element type where the device's differs,
// dtype.Invalid elsewhere.
type Edges struct {
	Args, Results []dtype.DType
}

// Carrier returns the element type the device uses for t on a target.
func (t *Target) Carrier(d dtype.DType) (dtype.DType, bool) {
	if _, ok := t.Types[d]; !ok {
		return d, false
	}
	switch d {
	case dtype.I2, dtype.I4:
		return dtype.I8, true
	case dtype.U2, dtype.U4:
		return dtype.U8, true
	}
	if d.IsFloat() {
		return dtype.F32, true
	}
	return d, false
}

func needTypes(s *State) bool {
	carried := func(t stablehlo.Type) bool {
		tt := stablehlo.AsTensor(t)
		if tt == nil || tt.Elem.IsQuantized() {
			return false
		}
		_, ok := s.Target.Carrier(tt.DType())
		return ok
	}
	for _, f := range s.Module.Funcs {
		if f.Type != nil {
			for _, t := range append(append([]stablehlo.Type{}, f.Type.Inputs...), f.Type.Results...) {
				if carried(t) {
					return true
				}
			}
		}
	}
	return anyOp(s.Module, func(op *stablehlo.Op) bool {
		for _, v := range op.Results {
			if carried(v.Type) {
				return true
			}
		}
		for _, v := range op.Operands {
			if carried(v.Type) {
				return true
			}
		}
		return false
	})
}

// isSubByteInt reports the integer types carried only at the edges.
func isSubByteInt(d dtype.DType) bool {
	return d == dtype.I2 || d == dtype.I4 || d == dtype.U2 || d == dtype.U4
}

func runTypes(s *State) error {
	tp := &typer{s: s}
	// Small floats everywhere first: each value of such a type becomes f32.
	for _, f := range s.Module.Funcs {
		if f.Body == nil {
			continue
		}
		for _, b := range f.Body.Blocks {
			for _, a := range b.Args {
				tp.widen(a)
			}
		}
	}
	r := newRewriter(tp.op)
	if err := r.funcs(s.Module); err != nil {
		return err
	}
	// Then the edges of @main: sub-byte integers travel in 8 bits.
	s.changed = true
	main := s.Module.Func("main")
	if main == nil || main.Body.Entry() == nil {
		return nil // no entry: the functions are widened inside only
	}
	blk := main.Body.Entry()
	e := &Edges{Args: make([]dtype.DType, len(blk.Args))}
	var pre []*stablehlo.Op
	for i, a := range blk.Args {
		if orig, ok := tp.orig[a]; ok {
			e.Args[i] = orig // a small float, widened in place
			continue
		}
		t := stablehlo.AsTensor(a.Type)
		if t == nil || t.Elem.IsQuantized() || !isSubByteInt(t.DType()) {
			continue
		}
		c, ok := s.Target.Carrier(t.DType())
		if !ok {
			continue
		}
		fb := stablehlo.NewOpsBuilder(main.Loc)
		na := &stablehlo.Value{Type: &stablehlo.TensorType{Shape: t.Shape, Elem: stablehlo.Elem(c)}, Index: i}
		conv := fb.Convert(na, t.DType())
		if err := fb.Err(); err != nil {
			return err
		}
		pre = append(pre, fb.Ops()...)
		replaceUses(main.Body, a, conv)
		blk.Args[i] = na
		e.Args[i] = t.DType()
	}
	blk.Ops = append(pre, blk.Ops...)
	ret := blk.Ops[len(blk.Ops)-1]
	if ret.Name != "func.return" {
		return fmt.Errorf("@main does not end with func.return")
	}
	e.Results = make([]dtype.DType, len(ret.Operands))
	var post []*stablehlo.Op
	for i, v := range ret.Operands {
		if orig, ok := tp.origResult(v); ok {
			e.Results[i] = orig
			continue
		}
		t := stablehlo.AsTensor(v.Type)
		if t == nil || t.Elem.IsQuantized() || !isSubByteInt(t.DType()) {
			continue
		}
		c, ok := s.Target.Carrier(t.DType())
		if !ok {
			continue
		}
		fb := stablehlo.NewOpsBuilder(ret.Loc)
		ret.Operands[i] = fb.Convert(v, c)
		if err := fb.Err(); err != nil {
			return err
		}
		post = append(post, fb.Ops()...)
		e.Results[i] = t.DType()
	}
	blk.Ops = append(append(blk.Ops[:len(blk.Ops)-1], post...), ret)
	for i, a := range blk.Args {
		main.Type.Inputs[i] = a.Type
	}
	for i, v := range ret.Operands {
		main.Type.Results[i] = v.Type
	}
	s.Edges = e
	s.changed = true
	return nil
}

// typer widens the small float types to f32.
type typer struct {
	s    *State
	orig map[*stablehlo.Value]dtype.DType
}

// wide reports whether d is a small float carried in f32.
func (tp *typer) wide(d dtype.DType) bool {
	c, ok := tp.s.Target.Carrier(d)
	return ok && c == dtype.F32 && d.IsFloat()
}

// widen retypes v to f32 when it holds a small float.
func (tp *typer) widen(v *stablehlo.Value) {
	t := stablehlo.AsTensor(v.Type)
	if t == nil || t.Elem.IsQuantized() || !tp.wide(t.DType()) {
		return
	}
	if tp.orig == nil {
		tp.orig = map[*stablehlo.Value]dtype.DType{}
	}
	tp.orig[v] = t.DType()
	v.Type = &stablehlo.TensorType{Shape: t.Shape, Elem: stablehlo.Elem(dtype.F32), Bounds: t.Bounds}
}

func (tp *typer) origResult(v *stablehlo.Value) (dtype.DType, bool) {
	d, ok := tp.orig[v]
	return d, ok
}

// typeMoves are the ops that move, select or compare values: on a
// widened type they act on the f32 values as they would on the narrow
// ones.
var typeMoves = map[string]bool{
	"stablehlo.broadcast_in_dim": true, "stablehlo.reshape": true, "stablehlo.transpose": true,
	"stablehlo.slice": true, "stablehlo.concatenate": true, "stablehlo.reverse": true, "stablehlo.dynamic_slice": true,
	"stablehlo.dynamic_update_slice": true, "stablehlo.gather": true, "stablehlo.select": true, "stablehlo.pad": true,
	"stablehlo.tuple": true, "stablehlo.get_tuple_element": true, "stablehlo.optimization_barrier": true,
	"stablehlo.while": true, "stablehlo.if": true, "stablehlo.case": true, "func.return": true, "stablehlo.return": true,
	"stablehlo.compare": true, "stablehlo.maximum": true, "stablehlo.minimum": true, "stablehlo.negate": true,
	"stablehlo.abs": true, "stablehlo.sort": true, "stablehlo.is_finite": true,
}

// rounding returns the reduce_precision format that rounds exactly to d,
// for the IEEE-like formats.
func rounding(d dtype.DType) (e, m int64, ok bool) {
	switch d {
	case dtype.F8E3M4:
		return 3, 4, true
	case dtype.F8E4M3:
		return 4, 3, true
	case dtype.F8E5M2:
		return 5, 2, true
	case dtype.F16:
		return 5, 10, true
	case dtype.BF16:
		return 8, 7, true
	}
	return 0, 0, false
}

func (tp *typer) op(op *stablehlo.Op) ([]*stablehlo.Op, []*stablehlo.Value, error) {
	narrow := dtype.Invalid // the small float type among the results
	for _, r := range op.Results {
		if t := stablehlo.AsTensor(r.Type); t != nil && !t.Elem.IsQuantized() && tp.wide(t.DType()) {
			narrow = t.DType()
		}
	}
	usesWide := false
	for _, v := range op.Operands {
		if _, ok := tp.orig[v]; ok {
			usesWide = true
		}
	}
	if narrow == dtype.Invalid && !usesWide {
		return nil, nil, nil
	}
	if strings.HasPrefix(op.Name, "check.") {
		// The interpreter's checks (run on the host by the device harness,
		// which strips them before the device sees the program) read the
		// narrow values: converted back for them.
		fb := stablehlo.NewOpsBuilder(op.Loc)
		for i, v := range op.Operands {
			if o, ok := tp.orig[v]; ok {
				op.Operands[i] = fb.Convert(v, o)
			}
		}
		if err := fb.Err(); err != nil {
			return nil, nil, err
		}
		return append(fb.Ops(), op), op.Results, nil
	}
	switch {
	case op.Name == "stablehlo.constant":
		d, ok := op.Attr("value").(*stablehlo.DenseAttr)
		if !ok || d.Value == nil {
			return nil, nil, fmt.Errorf("element type %v is not supported on this device (a constant not in dense form)", narrow)
		}
		lit, err := widenLiteral(d.Value)
		if err != nil {
			return nil, nil, err
		}
		nt := &stablehlo.TensorType{Shape: d.Type.Shape, Elem: stablehlo.Elem(dtype.F32)}
		op.SetAttr("value", &stablehlo.DenseAttr{Type: nt, Value: lit, Splat: d.Splat})
		tp.widen(op.Results[0])
		return nil, nil, nil
	case op.Name == "stablehlo.bitcast_convert":
		return nil, nil, fmt.Errorf("element type %v is not supported on this device: bitcast_convert of its bits", firstNarrow(narrow, tp, op))
	case op.Name == "stablehlo.convert" && narrow == dtype.Invalid:
		return nil, nil, nil // from the widened value: exact
	case typeMoves[op.Name] && (narrow == dtype.Invalid || tp.allWideOperands(op, narrow)):
		for _, r := range op.Results {
			tp.widen(r)
		}
		for _, reg := range op.Regions {
			for _, b := range reg.Blocks {
				for _, a := range b.Args {
					tp.widen(a)
				}
			}
		}
		return nil, nil, nil
	}
	// An op computing new values of the narrow type: f32, then rounded.
	e, m, ok := rounding(narrow)
	if !ok || len(op.Results) != 1 || len(op.Regions) > 0 {
		return nil, nil, fmt.Errorf("element type %v is not supported on this device: %s computes it and its rounding is not emulated", firstNarrow(narrow, tp, op), op.Name)
	}
	for _, r := range op.Results {
		tp.widen(r)
	}
	fb := stablehlo.NewOpsBuilder(op.Loc)
	out := fb.ReducePrecision(op.Results[0], e, m)
	if err := fb.Err(); err != nil {
		return nil, nil, err
	}
	ops := append([]*stablehlo.Op{op}, fb.Ops()...)
	tp.orig[out] = narrow
	return ops, []*stablehlo.Value{out}, nil
}

func (tp *typer) allWideOperands(op *stablehlo.Op, d dtype.DType) bool {
	for _, v := range op.Operands {
		t := stablehlo.AsTensor(v.Type)
		if t == nil {
			continue
		}
		if o, ok := tp.orig[v]; ok && o != d {
			return false
		}
	}
	return true
}

func firstNarrow(d dtype.DType, tp *typer, op *stablehlo.Op) dtype.DType {
	if d != dtype.Invalid {
		return d
	}
	for _, v := range op.Operands {
		if o, ok := tp.orig[v]; ok {
			return o
		}
	}
	return d
}

// widenLiteral decodes a small-float literal into f32.
func widenLiteral(l *literal.Literal) (*literal.Literal, error) {
	out, err := literal.New(dtype.F32, l.Shape)
	if err != nil {
		return nil, err
	}
	for i := 0; i < l.Len(); i++ {
		out.SetFloat64(i, l.Float64(i))
	}
	return out, nil
}
