package native

// batch_norm_inference, batch_norm_training and batch_norm_grad, following
// the spec's decompositions step by step: every elementwise step rounds to
// the element type, and every per-feature sum adds in row-major order from
// zero, as the decomposition's reduce does.

import (
	"fmt"
	"math"

	"github.com/torchtpu/torchtpu/dtype"
	"github.com/torchtpu/torchtpu/literal"
	"github.com/torchtpu/torchtpu/stablehlo"
)

func init() {
	register("stablehlo.batch_norm_inference", evalBatchNormInference)
	register("stablehlo.batch_norm_training", evalBatchNormTraining)
	register("stablehlo.batch_norm_grad", evalBatchNormGrad)
}

// bnGeom describes the operand of a batch norm op.
type bnGeom struct {
	dt      dtype.DType
	shape   []int64
	c       int // features
	stride  int // elements between consecutive features
	perElem float64
	r       func(float64) float64
	eps     float64
}

func (g *bnGeom) feature(i int) int { return i / g.stride % g.c }

func readBatchNorm(op *stablehlo.Op, in []Value, nOperands int) (*bnGeom, []*literal.Literal, error) {
	ls := make([]*literal.Literal, nOperands)
	for i := range ls {
		var err error
		if ls[i], err = tensorArg(op, in, i); err != nil {
			return nil, nil, err
		}
	}
	x := ls[0]
	if !x.DType.IsFloat() {
		return nil, nil, fmt.Errorf("%s: operand %v must be a float tensor", op.Name, x)
	}
	fi, ok := op.Int("feature_index")
	if !ok || fi < 0 || int(fi) >= x.Rank() {
		return nil, nil, fmt.Errorf("%s: feature_index missing or out of range for %v", op.Name, x)
	}
	epsAttr, ok := op.Attr("epsilon").(*stablehlo.FloatAttr)
	if !ok {
		return nil, nil, fmt.Errorf("%s: missing epsilon", op.Name)
	}
	g := &bnGeom{dt: x.DType, shape: x.Shape, c: int(x.Shape[fi]), stride: int(literal.Strides(x.Shape)[fi])}
	g.r = func(v float64) float64 { return roundToDType(g.dt, v) }
	g.eps = g.r(epsAttr.Value)
	if g.c > 0 {
		g.perElem = g.r(float64(x.Len() / g.c))
	}
	for i, l := range ls[1:] {
		if l.DType != x.DType {
			return nil, nil, fmt.Errorf("%s: operand #%d is %v, want %v elements", op.Name, i+1, l, x.DType)
		}
		if l.Rank() == 1 && l.Shape[0] != int64(g.c) {
			return nil, nil, fmt.Errorf("%s: operand #%d is %v, want %d features", op.Name, i+1, l, g.c)
		}
		if l.Rank() != 1 && !reduceShapeEq(l.Shape, x.Shape) {
			return nil, nil, fmt.Errorf("%s: operand #%d is %v, want a vector of %d features or the operand's shape", op.Name, i+1, l, g.c)
		}
	}
	return g, ls, nil
}

// featureSum adds v per feature, in row-major order, rounding every step.
func (g *bnGeom) featureSum(v []float64) []float64 {
	s := make([]float64, g.c)
	for i, x := range v {
		f := g.feature(i)
		s[f] = g.r(s[f] + x)
	}
	return s
}

// normalize returns (x - mean) and (x - mean) / sqrt(var + eps).
func (g *bnGeom) normalize(x, mean, variance []float64) (centered, normed, stddev []float64) {
	stddev = make([]float64, g.c)
	for f := range stddev {
		stddev[f] = g.r(math.Sqrt(g.r(variance[f] + g.eps)))
	}
	centered = make([]float64, len(x))
	normed = make([]float64, len(x))
	for i, v := range x {
		f := g.feature(i)
		centered[i] = g.r(v - mean[f])
		normed[i] = g.r(centered[i] / stddev[f])
	}
	return centered, normed, stddev
}

func (g *bnGeom) output(normed, scale, offset []float64) (*literal.Literal, error) {
	out, err := literal.New(g.dt, g.shape)
	if err != nil {
		return nil, err
	}
	v := make([]float64, len(normed))
	for i, n := range normed {
		f := g.feature(i)
		v[i] = g.r(g.r(scale[f]*n) + offset[f])
	}
	encodeFloats(out, v)
	return out, nil
}

func (g *bnGeom) vector(v []float64) (*literal.Literal, error) {
	out, err := literal.New(g.dt, []int64{int64(g.c)})
	if err != nil {
		return nil, err
	}
	encodeFloats(out, v)
	return out, nil
}

func evalBatchNormInference(env Env, op *stablehlo.Op, in []Value) ([]Value, error) {
	g, ls, err := readBatchNorm(op, in, 5)
	if err != nil {
		return nil, err
	}
	_, normed, _ := g.normalize(decodeFloats(ls[0]), decodeFloats(ls[3]), decodeFloats(ls[4]))
	out, err := g.output(normed, decodeFloats(ls[1]), decodeFloats(ls[2]))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", op.Name, err)
	}
	return []Value{out}, nil
}

func evalBatchNormTraining(env Env, op *stablehlo.Op, in []Value) ([]Value, error) {
	g, ls, err := readBatchNorm(op, in, 3)
	if err != nil {
		return nil, err
	}
	x := decodeFloats(ls[0])
	mean := g.featureSum(x)
	for f := range mean {
		mean[f] = g.r(mean[f] / g.perElem)
	}
	sq := make([]float64, len(x))
	for i, v := range x {
		c := g.r(v - mean[g.feature(i)])
		sq[i] = g.r(c * c)
	}
	variance := g.featureSum(sq)
	for f := range variance {
		variance[f] = g.r(variance[f] / g.perElem)
	}
	_, normed, _ := g.normalize(x, mean, variance)
	out, err := g.output(normed, decodeFloats(ls[1]), decodeFloats(ls[2]))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", op.Name, err)
	}
	m, err := g.vector(mean)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", op.Name, err)
	}
	v, err := g.vector(variance)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", op.Name, err)
	}
	return []Value{out, m, v}, nil
}

func evalBatchNormGrad(env Env, op *stablehlo.Op, in []Value) ([]Value, error) {
	g, ls, err := readBatchNorm(op, in, 5)
	if err != nil {
		return nil, err
	}
	x, scale, mean, variance, gy := decodeFloats(ls[0]), decodeFloats(ls[1]), decodeFloats(ls[2]), decodeFloats(ls[3]), decodeFloats(ls[4])
	if len(gy) != len(x) {
		return nil, fmt.Errorf("%s: grad_output %v does not match operand %v", op.Name, ls[4], ls[0])
	}
	centered, normed, stddev := g.normalize(x, mean, variance)
	prod := make([]float64, len(x))
	for i := range prod {
		prod[i] = g.r(gy[i] * centered[i])
	}
	i2 := g.featureSum(gy)
	i3 := g.featureSum(prod)
	gx := make([]float64, len(x))
	for i := range gx {
		f := g.feature(i)
		i1 := g.r(gy[i] * g.perElem)
		i4 := g.r(i3[f] * centered[i])
		i5 := g.r(i4 / g.r(variance[f]+g.eps))
		i6 := g.r(g.r(i1-i2[f]) - i5)
		gx[i] = g.r(g.r(g.r(scale[f]/stddev[f])/g.perElem) * i6)
	}
	gn := make([]float64, len(x))
	for i := range gn {
		gn[i] = g.r(gy[i] * normed[i])
	}
	out, err := literal.New(g.dt, g.shape)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", op.Name, err)
	}
	encodeFloats(out, gx)
	gs, err := g.vector(g.featureSum(gn))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", op.Name, err)
	}
	gb, err := g.vector(i2)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", op.Name, err)
	}
	return []Value{out, gs, gb}, nil
}
