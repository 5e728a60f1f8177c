package native

import (
	"fmt"

	"github.com/torchtpu/torchtpu/literal"
	"github.com/torchtpu/torchtpu/stablehlo"
)

// select and clamp: elementwise with a scalar operand broadcast (the
// predicate of select, min and max of clamp).

func init() {
	register("stablehlo.select", evalSelect)
	register("stablehlo.clamp", evalClamp)
}

func evalSelect(env Env, op *stablehlo.Op, in []Value) ([]Value, error) {
	if len(in) != 3 {
		return nil, fmt.Errorf("want 3 operands, got %d", len(in))
	}
	p, err := tensorArg(op, in, 0)
	if err != nil {
		return nil, err
	}
	a, err := tensorArg(op, in, 1)
	if err != nil {
		return nil, err
	}
	b, err := tensorArg(op, in, 2)
	if err != nil {
		return nil, err
	}
	if a.DType != b.DType || !shapeEq(a.Shape, b.Shape) {
		return nil, fmt.Errorf("on_true %v and on_false %v differ", a, b)
	}
	if len(p.Shape) != 0 && !shapeEq(p.Shape, a.Shape) {
		return nil, fmt.Errorf("pred %v must be a scalar or have the shape of %v", p, a)
	}
	out, err := takeResult(env, a.DType, a.Shape) // every element is written
	if err != nil {
		return nil, err
	}
	if len(p.Shape) == 0 {
		src := b
		if p.Data[0] != 0 {
			src = a
		}
		copy(out.Data, src.Data)
		return []Value{out}, nil
	}
	n := a.Len()
	parts := 1
	if n >= selectParMin {
		parts = min(Threads(), n/(selectParMin/2))
	}
	runParts(n, parts, func(lo, hi int) { selectRange(a.DType.Size(), out.Data, p.Data, a.Data, b.Data, lo, hi) })
	return []Value{out}, nil
}

// selectParMin is the element count from which a select is split over
// the loop pool.
const selectParMin = 1 << 16

// selectRange writes elements [lo, hi) of dst: pred[i] ? a[i] : b[i],
// elements of esz bytes (moved as bits: 4- and 8-byte ones as words
// where the buffers allow).
func selectRange(esz int, dst, pred, a, b []byte, lo, hi int) {
	switch {
	case esz == 8 && selectWords[uint64](dst, pred, a, b, lo, hi):
	case esz == 4 && selectWords[uint32](dst, pred, a, b, lo, hi):
	default:
		for i := lo; i < hi; i++ {
			src := b
			if pred[i] != 0 {
				src = a
			}
			copy(dst[i*esz:(i+1)*esz], src[i*esz:(i+1)*esz])
		}
	}
}

// selectWords is selectRange on elements of T, reporting false (having
// done nothing) where the buffers cannot be seen as T.
func selectWords[T uint32 | uint64](dst, pred, a, b []byte, lo, hi int) bool {
	d, x, y := elems[T](dst), elems[T](a), elems[T](b)
	if d == nil || x == nil || y == nil {
		return false
	}
	for i := lo; i < hi; i++ {
		if pred[i] != 0 {
			d[i] = x[i]
		} else {
			d[i] = y[i]
		}
	}
	return true
}

// evalClamp computes min(max(x, lo), hi) with the maximum and minimum
// kernels' semantics (NaN propagates).
func evalClamp(_ Env, op *stablehlo.Op, in []Value) ([]Value, error) {
	if len(in) != 3 {
		return nil, fmt.Errorf("want 3 operands, got %d", len(in))
	}
	var ls [3]*literal.Literal
	for i := range ls {
		l, err := tensorArg(op, in, i)
		if err != nil {
			return nil, err
		}
		ls[i] = l
	}
	lo, x, hi := ls[0], ls[1], ls[2]
	for _, b := range []*literal.Literal{lo, hi} {
		if b.DType != x.DType || len(b.Shape) != 0 && !shapeEq(b.Shape, x.Shape) {
			return nil, fmt.Errorf("bound %v must be a scalar or match operand %v", b, x)
		}
	}
	lo, err := broadcastScalar(lo, x.Shape)
	if err != nil {
		return nil, err
	}
	hi, err = broadcastScalar(hi, x.Shape)
	if err != nil {
		return nil, err
	}
	mx := kernels["stablehlo.maximum"]
	mn := kernels["stablehlo.minimum"]
	plain := &stablehlo.Op{Name: op.Name, Loc: op.Loc}
	t, err := mx(nil, plain, []Value{x, lo})
	if err != nil {
		return nil, err
	}
	return mn(nil, plain, []Value{t[0], hi})
}

// broadcastScalar repeats a rank-0 literal to shape (others pass through).
func broadcastScalar(l *literal.Literal, shape []int64) (*literal.Literal, error) {
	if len(l.Shape) == len(shape) {
		return l, nil
	}
	out, err := literal.New(l.DType, shape)
	if err != nil {
		return nil, err
	}
	sz := l.DType.Size()
	for i := 0; i < len(out.Data); i += sz {
		copy(out.Data[i:i+sz], l.Data[:sz])
	}
	return out, nil
}
