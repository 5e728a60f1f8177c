package stablehlo

import (
	"fmt"
	"strings"
)

// Builder assembles a Module op by op, inferring result types.
//
// Error style: op methods never return errors. The first error (a bad
// operand, an attribute that does not fit the shapes) is recorded in the
// builder, and that op and every later op return nil values; Err reports the
// error and Build returns it. So a lowering can emit a whole sequence and
// check once:
//
//	b := stablehlo.NewBuilder("jit_f")
//	fb := b.NewFunc("main", stablehlo.Tensor(dtype.F32, 2, 3))
//	x := fb.Arg(0)
//	y := fb.Add(x, fb.Exp(x))
//	fb.Return(y)
//	m, err := b.Build()
//
// Methods with several results return a slice of the documented length
// even after an error (its entries are then nil), so indexing is safe.
// StableHLO does not broadcast implicitly and neither does the builder.
type Builder struct {
	m   *Module
	err error
}

// NewBuilder starts a module named name (without '@'; may be empty).
func NewBuilder(name string) *Builder {
	return &Builder{m: &Module{Name: name}}
}

// Module returns the module being built (also when there was an error).
func (b *Builder) Module() *Module { return b.m }

// Err returns the first error recorded, or nil.
func (b *Builder) Err() error { return b.err }

// SetAttr sets a module attribute (e.g. mhlo.num_partitions).
func (b *Builder) SetAttr(name string, v Attr) {
	for i := range b.m.Attrs {
		if b.m.Attrs[i].Name == name {
			b.m.Attrs[i].Value = v
			return
		}
	}
	b.m.Attrs = append(b.m.Attrs, NamedAttr{name, v})
	SortAttrs(b.m.Attrs)
}

// Build returns the module after checking it with Verify, or the first
// error recorded while building.
func (b *Builder) Build() (*Module, error) {
	if b.err != nil {
		return nil, b.err
	}
	if err := Verify(b.m); err != nil {
		return nil, fmt.Errorf("stablehlo: built module does not verify: %w", err)
	}
	return b.m, nil
}

func (b *Builder) fail(err error) {
	if b.err == nil {
		b.err = err
	}
}

// FuncBuilder emits ops into one block: a function body or a region of an
// op (a reduce body, a sort comparator, a while loop...).
type FuncBuilder struct {
	b     *Builder
	fn    *Func // nil for a nested region
	block *Block
	loc   Loc
}

// SetLoc sets the location given to the ops emitted from now on (e.g. the
// Python source line of the node being lowered); regions built from this
// builder inherit it.
func (fb *FuncBuilder) SetLoc(l Loc) { fb.loc = l }

// NewFunc adds a public function with the given argument types and returns
// the builder of its body. Call Return to finish it.
func (b *Builder) NewFunc(name string, args ...Type) *FuncBuilder {
	blk := &Block{}
	for i, t := range args {
		blk.Args = append(blk.Args, &Value{Type: t, Index: i})
	}
	fn := &Func{Name: name, Type: &FuncType{Inputs: append([]Type{}, args...)}, Body: &Region{Blocks: []*Block{blk}}}
	if b.m.Func(name) != nil {
		b.fail(fmt.Errorf("stablehlo: function @%s defined twice", name))
	}
	b.m.Funcs = append(b.m.Funcs, fn)
	return &FuncBuilder{b: b, fn: fn, block: blk}
}

// Func returns the function being built (nil inside a region).
func (fb *FuncBuilder) Func() *Func { return fb.fn }

// Builder returns the module builder.
func (fb *FuncBuilder) Builder() *Builder { return fb.b }

// Err returns the first error recorded in the module builder.
func (fb *FuncBuilder) Err() error { return fb.b.err }

// Arg returns argument i of the function or region block (nil, with an
// error recorded, when out of range).
func (fb *FuncBuilder) Arg(i int) *Value {
	if i < 0 || i >= len(fb.block.Args) {
		fb.b.fail(fmt.Errorf("stablehlo: argument %d of a block with %d arguments", i, len(fb.block.Args)))
		return nil
	}
	return fb.block.Args[i]
}

// Args returns all block arguments.
func (fb *FuncBuilder) Args() []*Value { return append([]*Value(nil), fb.block.Args...) }

// Return ends the function with func.return, setting its result types.
// Inside a region (a body callback) return the values from the callback
// instead.
func (fb *FuncBuilder) Return(vals ...*Value) {
	if fb.fn == nil {
		fb.b.fail(fmt.Errorf("stablehlo: Return inside a region: return the values from the body callback"))
		return
	}
	if !fb.checkOperands("func.return", vals) {
		return
	}
	fb.fn.Type.Results = make([]Type, len(vals))
	for i, v := range vals {
		fb.fn.Type.Results[i] = v.Type
	}
	ret := NewOp("func.return", vals, nil, nil)
	ret.Loc = fb.loc
	fb.block.Ops = append(fb.block.Ops, ret)
}

// checkOperands reports whether every operand is usable; it records an
// error for a nil operand unless an earlier error explains it.
func (fb *FuncBuilder) checkOperands(name string, vals []*Value) bool {
	for i, v := range vals {
		if v == nil || v.Type == nil {
			if fb.b.err == nil {
				fb.b.fail(fmt.Errorf("stablehlo: %s: operand %d is nil", name, i))
			}
			return false
		}
	}
	return fb.b.err == nil
}

// Op emits an op with inferred result types and returns its results (nil
// after an error). It is the generic entry point behind the typed methods.
func (fb *FuncBuilder) Op(name string, operands []*Value, attrs []NamedAttr, regions ...*Region) []*Value {
	if !fb.checkOperands(name, operands) {
		return nil
	}
	op := NewOp(name, operands, nil, attrs, regions...)
	op.Results = nil
	op.Loc = fb.loc
	ts, err := InferResultTypes(op)
	if err != nil {
		fb.b.fail(fmt.Errorf("stablehlo: build %s%w", locPrefix(fb.loc), err))
		return nil
	}
	return fb.emit(op, ts)
}

// OpTyped emits an op whose result types are given (needed for reshape,
// convert, iota, custom_call and other ops whose result type is not implied
// by the operands). Where a type-inference rule exists it checks them.
func (fb *FuncBuilder) OpTyped(name string, operands []*Value, results []Type, attrs []NamedAttr, regions ...*Region) []*Value {
	out := make([]*Value, len(results))
	if !fb.checkOperands(name, operands) {
		return out
	}
	for i, t := range results {
		if t == nil {
			fb.b.fail(fmt.Errorf("stablehlo: build %s: result type %d is nil", name, i))
			return out
		}
	}
	op := NewOp(name, operands, results, attrs, regions...)
	op.Loc = fb.loc
	if HasInferRule(name) {
		ts, err := InferResultTypes(op)
		if err != nil {
			fb.b.fail(fmt.Errorf("stablehlo: build %s%w", locPrefix(fb.loc), err))
			return out
		}
		if err := matchTypes("inferred", ts, results); err != nil {
			fb.b.fail(fmt.Errorf("stablehlo: build %s%s%s: result types %s: %w", locPrefix(fb.loc), name, signature(op), typeList(results), err))
			return out
		}
	}
	fb.block.Ops = append(fb.block.Ops, op)
	copy(out, op.Results)
	return out
}

func (fb *FuncBuilder) emit(op *Op, ts []Type) []*Value {
	op.Results = make([]*Value, len(ts))
	for i, t := range ts {
		op.Results[i] = &Value{Type: t, Def: op, Index: i}
	}
	fb.block.Ops = append(fb.block.Ops, op)
	return op.Results
}

// one emits a single-result op with inferred type.
func (fb *FuncBuilder) one(name string, operands []*Value, attrs ...NamedAttr) *Value {
	rs := fb.Op(name, operands, attrs)
	if len(rs) != 1 {
		if rs != nil {
			fb.b.fail(fmt.Errorf("stablehlo: build %s: has %d results, want 1", name, len(rs)))
		}
		return nil
	}
	return rs[0]
}

// oneTyped emits a single-result op of the given result type.
func (fb *FuncBuilder) oneTyped(name string, operands []*Value, result Type, attrs ...NamedAttr) *Value {
	return fb.OpTyped(name, operands, []Type{result}, attrs)[0]
}

func locPrefix(l Loc) string {
	if l.Line == 0 {
		return ""
	}
	return l.String() + ": "
}

func typeList(ts []Type) string {
	parts := make([]string, len(ts))
	for i, t := range ts {
		if t == nil {
			parts[i] = "<nil>"
		} else {
			parts[i] = t.String()
		}
	}
	return "(" + strings.Join(parts, ", ") + ")"
}

// BodyFunc builds a region body: it receives the region's builder and block
// arguments and returns the values the region yields (stablehlo.return).
type BodyFunc func(b *FuncBuilder, args []*Value) []*Value

// Region builds a single-block region with arguments of the given types;
// the body's returned values end it with stablehlo.return.
func (fb *FuncBuilder) Region(argTypes []Type, body BodyFunc) *Region {
	blk := &Block{}
	for i, t := range argTypes {
		blk.Args = append(blk.Args, &Value{Type: t, Index: i})
	}
	sub := &FuncBuilder{b: fb.b, block: blk, loc: fb.loc}
	var rets []*Value
	if body != nil {
		rets = body(sub, sub.Args())
	}
	if sub.checkOperands("stablehlo.return", rets) {
		blk.Ops = append(blk.Ops, NewOp("stablehlo.return", rets, nil, nil))
	}
	return &Region{Blocks: []*Block{blk}}
}

// valueTypes returns the types of vs (nil entries for nil values).
func valueTypes(vs []*Value) []Type {
	out := make([]Type, len(vs))
	for i, v := range vs {
		if v != nil {
			out[i] = v.Type
		}
	}
	return out
}

// tensorOf returns v's tensor type or nil.
func tensorOf(v *Value) *TensorType {
	if v == nil {
		return nil
	}
	return AsTensor(v.Type)
}
