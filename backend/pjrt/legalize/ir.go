package legalize

import (
	"errors"
	"fmt"

	"github.com/torchtpu/torchtpu/literal"
	"github.com/torchtpu/torchtpu/stablehlo"
)

// Helpers over the IR shared by the passes: rewriting a block op by op
// with value substitution, cloning regions, constants and dead code.

var errStop = errors.New("stop")

// rule looks at one op (its operands already substituted) and returns
// nil, nil to keep it, or the ops to put in its place and the values that
// replace its results (one per result).
type rule func(op *stablehlo.Op) ([]*stablehlo.Op, []*stablehlo.Value, error)

// rewriter applies a rule to every op of a region, in order, parents
// before the ops of their regions; a replaced op's results are
// substituted in every later use.
type rewriter struct {
	subst map[*stablehlo.Value]*stablehlo.Value
	fn    rule
	// sealed, when set, names ops whose regions are left as they are.
	sealed func(op *stablehlo.Op) bool
	// changed is set when a rule replaced an op.
	changed bool
}

func newRewriter(fn rule) *rewriter {
	return &rewriter{subst: map[*stablehlo.Value]*stablehlo.Value{}, fn: fn}
}

func (r *rewriter) value(v *stablehlo.Value) *stablehlo.Value {
	for {
		n, ok := r.subst[v]
		if !ok {
			return v
		}
		v = n
	}
}

// funcs rewrites every function body of m.
func (r *rewriter) funcs(m *stablehlo.Module) error {
	for _, f := range m.Funcs {
		if f.Body == nil {
			continue
		}
		if err := r.region(f.Body); err != nil {
			return fmt.Errorf("@%s: %w", f.Name, err)
		}
		r.retype(f)
	}
	return nil
}

// retype sets a function's result types from its return.
func (r *rewriter) retype(f *stablehlo.Func) {
	blk := f.Body.Entry()
	if blk == nil || len(blk.Ops) == 0 || f.Type == nil {
		return
	}
	ret := blk.Ops[len(blk.Ops)-1]
	if ret.Name != "func.return" || len(ret.Operands) != len(f.Type.Results) {
		return
	}
	for i, v := range ret.Operands {
		f.Type.Results[i] = v.Type
	}
	for i, a := range blk.Args {
		if i < len(f.Type.Inputs) {
			f.Type.Inputs[i] = a.Type
		}
	}
}

func (r *rewriter) region(reg *stablehlo.Region) error {
	if reg == nil {
		return nil
	}
	for _, b := range reg.Blocks {
		if err := r.block(b); err != nil {
			return err
		}
	}
	return nil
}

func (r *rewriter) block(b *stablehlo.Block) error {
	out := make([]*stablehlo.Op, 0, len(b.Ops))
	for _, op := range b.Ops {
		for i, v := range op.Operands {
			op.Operands[i] = r.value(v)
		}
		ops, res, err := r.fn(op)
		if err != nil {
			return fmt.Errorf("%s (%v): %w", op.Name, op.Loc, err)
		}
		if ops == nil && res == nil {
			if r.sealed != nil && r.sealed(op) {
				out = append(out, op)
				continue
			}
			for _, sub := range op.Regions {
				if err := r.region(sub); err != nil {
					return err
				}
			}
			out = append(out, op)
			continue
		}
		if len(res) != len(op.Results) {
			return fmt.Errorf("%s (%v): rewrite gave %d values for %d results", op.Name, op.Loc, len(res), len(op.Results))
		}
		r.changed = true
		for i, v := range op.Results {
			if res[i] != v {
				r.subst[v] = res[i]
			}
		}
		out = append(out, ops...)
	}
	b.Ops = out
	return nil
}

// hasCalls reports whether a function of m calls another.
func hasCalls(m *stablehlo.Module) bool {
	found := false
	for _, f := range m.Funcs {
		_ = f.Body.Walk(func(op *stablehlo.Op) error {
			if op.Name == "func.call" {
				found = true
				return errStop
			}
			return nil
		})
	}
	return found
}

// anyOp reports whether some op of m satisfies pred.
func anyOp(m *stablehlo.Module, pred func(*stablehlo.Op) bool) bool {
	found := false
	for _, f := range m.Funcs {
		_ = f.Body.Walk(func(op *stablehlo.Op) error {
			if pred(op) {
				found = true
				return errStop
			}
			return nil
		})
		if found {
			return true
		}
	}
	return false
}

// constOp makes a constant op holding lit, of type t (t's element type
// may be quantized; lit holds the storage values).
func constOp(lit *literal.Literal, t *stablehlo.TensorType, loc stablehlo.Loc) *stablehlo.Op {
	op := stablehlo.NewOp("stablehlo.constant", nil, []stablehlo.Type{t},
		[]stablehlo.NamedAttr{{Name: "value", Value: &stablehlo.DenseAttr{Type: t, Value: lit}}})
	op.Loc = loc
	return op
}

// becomeConstant turns op into a constant holding lit, keeping its result
// value (so every use now reads the constant).
func becomeConstant(op *stablehlo.Op, lit *literal.Literal) {
	t := &stablehlo.TensorType{Shape: append([]int64{}, lit.Shape...), Elem: stablehlo.Elem(lit.DType)}
	if rt := stablehlo.AsTensor(op.Results[0].Type); rt != nil && rt.Elem.IsQuantized() {
		t.Elem = rt.Elem
	}
	op.Name = "stablehlo.constant"
	op.Operands = nil
	op.Regions = nil
	op.Attrs = []stablehlo.NamedAttr{{Name: "value", Value: &stablehlo.DenseAttr{Type: t, Value: lit}}}
	op.Results = op.Results[:1]
	op.Results[0].Type = t
}

// denseValue returns the literal of a constant op's value, expanded when
// splat; ok is false for other ops and other attribute forms.
func denseValue(op *stablehlo.Op) (*literal.Literal, bool) {
	if op == nil || op.Name != "stablehlo.constant" {
		return nil, false
	}
	d, ok := op.Attr("value").(*stablehlo.DenseAttr)
	if !ok || d.Value == nil || d.Type == nil || !d.Type.IsStatic() {
		return nil, false
	}
	if !d.Splat {
		return d.Value, true
	}
	n := d.Type.NumElements()
	if n > maxFoldElems {
		return nil, false
	}
	out, err := literal.New(d.Value.DType, d.Type.Shape)
	if err != nil {
		return nil, false
	}
	es := d.Value.DType.Size()
	if len(d.Value.Data) < es {
		return nil, false
	}
	for i := int64(0); i < n; i++ {
		copy(out.Data[i*int64(es):], d.Value.Data[:es])
	}
	return out, true
}
