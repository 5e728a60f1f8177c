package aten

import (
	"errors"
	"fmt"

	"github.com/torchtpu/torchtpu/dtype"
	"github.com/torchtpu/torchtpu/stablehlo"
)

// LowerCtx is where a lowering emits StableHLO: ops are appended to one
// block, their result types inferred by the stablehlo package.
//
// Emission helpers never return nil and never panic: when an op cannot be
// built (a shape mismatch that PyTorch would reject, say) the helper
// records the error, returns a placeholder value, and the dispatcher
// (Entry.Call) reports the first error with the op and the node.
type LowerCtx struct {
	block *stablehlo.Block
	// Loc is attached to every op emitted (the node's source position
	// where known).
	Loc stablehlo.Loc
	// NoF64 keeps computations out of float64 for devices without it
	// (TPU): float32 math and reductions then stay in float32 instead of
	// widening (see Wide).
	NoF64 bool
	// RNG, when set, returns a fresh random-generator state for one random
	// op (a ui64[2] value, normally a segment argument the runtime fills
	// from its generator on every run). Without it random ops are seeded
	// from their node and repeat their values.
	RNG  func() *stablehlo.Value
	errs []error
}

// NewLowerCtx returns a context that appends to block.
func NewLowerCtx(block *stablehlo.Block) *LowerCtx { return &LowerCtx{block: block} }

// Wide is the dtype float32 work widens to for accuracy: float64, or
// float32 itself when the device has no float64.
func (c *LowerCtx) Wide() dtype.DType {
	if c.NoF64 {
		return dtype.F32
	}
	return dtype.F64
}

// Block returns the block ops are appended to.
func (c *LowerCtx) Block() *stablehlo.Block { return c.block }

// Errorf records an error; the current call fails with the first one.
func (c *LowerCtx) Errorf(format string, args ...any) error {
	err := fmt.Errorf(format, args...)
	c.errs = append(c.errs, err)
	return err
}

// Err returns the first recorded error.
func (c *LowerCtx) Err() error {
	if len(c.errs) == 0 {
		return nil
	}
	return c.errs[0]
}

func (c *LowerCtx) errMark() int { return len(c.errs) }

func (c *LowerCtx) errSince(mark int) error {
	if len(c.errs) > mark {
		return c.errs[mark]
	}
	return nil
}

// Op appends an op. With no result types they are inferred; given ones
// (needed by reshape, convert, broadcast_in_dim, iota, ...) are checked.
func (c *LowerCtx) Op(name string, operands []*stablehlo.Value, attrs []stablehlo.NamedAttr, results ...stablehlo.Type) *stablehlo.Op {
	return c.OpRegions(name, operands, attrs, nil, results...)
}

// OpRegions is Op with regions (reduce, sort, while, ...).
func (c *LowerCtx) OpRegions(name string, operands []*stablehlo.Value, attrs []stablehlo.NamedAttr, regions []*stablehlo.Region, results ...stablehlo.Type) *stablehlo.Op {
	for i, v := range operands {
		if v == nil {
			c.Errorf("%s: operand %d is missing", name, i)
			operands[i] = c.placeholder(stablehlo.Tensor(dtype.F32))
		}
	}
	op := stablehlo.NewOp(name, operands, results, attrs, regions...)
	op.Loc = c.Loc
	if stablehlo.HasInferRule(name) {
		ts, err := stablehlo.InferResultTypes(op)
		if err != nil {
			c.Errorf("emit %w", err)
			if len(results) == 0 {
				ts = []stablehlo.Type{placeholderType(operands)}
			} else {
				ts = results
			}
		}
		if len(results) == 0 {
			op = stablehlo.NewOp(name, operands, ts, attrs, regions...)
			op.Loc = c.Loc
		}
	} else if len(results) == 0 {
		c.Errorf("%s: result types are needed (no inference rule)", name)
		op = stablehlo.NewOp(name, operands, []stablehlo.Type{placeholderType(operands)}, attrs, regions...)
	}
	c.block.Ops = append(c.block.Ops, op)
	return op
}

// Op1 appends a one-result op and returns its result.
func (c *LowerCtx) Op1(name string, operands []*stablehlo.Value, attrs []stablehlo.NamedAttr, results ...stablehlo.Type) *stablehlo.Value {
	op := c.Op(name, operands, attrs, results...)
	if len(op.Results) == 0 {
		c.Errorf("%s has no result", name)
		return c.placeholder(stablehlo.Tensor(dtype.F32))
	}
	return op.Results[0]
}

func placeholderType(operands []*stablehlo.Value) stablehlo.Type {
	if len(operands) > 0 && operands[0] != nil && operands[0].Type != nil {
		return operands[0].Type
	}
	return stablehlo.Tensor(dtype.F32)
}

func (c *LowerCtx) placeholder(t stablehlo.Type) *stablehlo.Value { return &stablehlo.Value{Type: t} }

// Type returns v's tensor type (a placeholder type and an error when v is
// not a tensor).
func (c *LowerCtx) Type(v *stablehlo.Value) *stablehlo.TensorType {
	if v != nil {
		if t, ok := v.Type.(*stablehlo.TensorType); ok {
			return t
		}
	}
	c.Errorf("value is not a tensor")
	return stablehlo.Tensor(dtype.F32)
}

// Shape returns v's static shape.
func (c *LowerCtx) Shape(v *stablehlo.Value) []int64 { return c.Type(v).Shape }

// Rank returns v's rank.
func (c *LowerCtx) Rank(v *stablehlo.Value) int { return c.Type(v).Rank() }

// DType returns v's element type.
func (c *LowerCtx) DType(v *stablehlo.Value) dtype.DType { return c.Type(v).DType() }

// Call lowers another entry (a decomposition step): positional and keyword
// values are bound to its schema.
func (c *LowerCtx) Call(name string, positional []Value, kwargs map[string]Value) ([]Value, error) {
	e, ok := Lookup(name)
	if !ok {
		return nil, fmt.Errorf("decomposition needs %s, which is not registered", CanonicalName(name))
	}
	s, err := e.parsed()
	if err != nil {
		return nil, err
	}
	args, err := Bind(s, positional, kwargs)
	if err != nil {
		return nil, err
	}
	out, err := e.Call(c, args)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", e.Name, err)
	}
	return out, nil
}

// Call1 is Call for a one-tensor result; an error is recorded and a
// placeholder returned.
func (c *LowerCtx) Call1(name string, positional ...Value) *stablehlo.Value {
	out, err := c.Call(name, positional, nil)
	if err == nil && (len(out) == 0 || out[0].T == nil) {
		err = fmt.Errorf("%s returned no tensor", name)
	}
	if err != nil {
		c.errs = append(c.errs, err)
		return c.placeholder(stablehlo.Tensor(dtype.F32))
	}
	return out[0].T
}

// Region builds a single-block region whose arguments have the given
// types; body returns the values for the region's stablehlo.return.
func (c *LowerCtx) Region(argTypes []stablehlo.Type, body func(sub *LowerCtx, args []*stablehlo.Value) []*stablehlo.Value) *stablehlo.Region {
	b := &stablehlo.Block{}
	for i, t := range argTypes {
		b.Args = append(b.Args, &stablehlo.Value{Type: t, Index: i})
	}
	sub := &LowerCtx{block: b, Loc: c.Loc, NoF64: c.NoF64, RNG: c.RNG}
	ret := body(sub, b.Args)
	c.errs = append(c.errs, sub.errs...)
	r := stablehlo.NewOp("stablehlo.return", ret, nil, nil)
	r.Loc = c.Loc
	b.Ops = append(b.Ops, r)
	return &stablehlo.Region{Blocks: []*stablehlo.Block{b}}
}

// ErrUnsupported marks an argument combination the lowering does not
// handle (wrapped into errors so callers can tell it from bad input).
var ErrUnsupported = errors.New("unsupported")

// i64s makes an array<i64: ...> attribute value.
func i64s(xs []int64) stablehlo.Attr {
	return &stablehlo.DenseArrayAttr{Elem: "i64", Ints: append([]int64{}, xs...)}
}

// Attr makes a named attribute.
func Attr(name string, v stablehlo.Attr) stablehlo.NamedAttr {
	return stablehlo.NamedAttr{Name: name, Value: v}
}

// I64s makes a named array<i64> attribute.
func I64s(name string, xs []int64) stablehlo.NamedAttr { return Attr(name, i64s(xs)) }
