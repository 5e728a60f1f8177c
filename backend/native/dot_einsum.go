package native

// The deprecated einsum ("ab,bc->ac") and unary_einsum ("ab->a") ops:
// every output element sums the products over the labels missing from the
// output, in row-major order of those labels, in float64 / complex128 /
// int64, rounded once.

import (
	"fmt"
	"strings"

	"github.com/torchtpu/torchtpu/literal"
	"github.com/torchtpu/torchtpu/stablehlo"
)

func init() {
	register("stablehlo.einsum", evalEinsum)
	register("stablehlo.unary_einsum", evalEinsum)
}

func evalEinsum(env Env, op *stablehlo.Op, in []Value) ([]Value, error) {
	cfg, ok := op.Attr("einsum_config").(stablehlo.StringAttr)
	if !ok {
		return nil, fmt.Errorf("%s: missing einsum_config", op.Name)
	}
	lhsSpec, outSpec, ok := strings.Cut(string(cfg), "->")
	if !ok {
		return nil, fmt.Errorf("%s: einsum_config %q has no ->", op.Name, cfg)
	}
	specs := strings.Split(lhsSpec, ",")
	if len(specs) != len(in) || len(in) < 1 || len(in) > 2 {
		return nil, fmt.Errorf("%s: einsum_config %q names %d operands, got %d", op.Name, cfg, len(specs), len(in))
	}
	ops := make([]*literal.Literal, len(in))
	size := map[rune]int64{}
	for i := range in {
		var err error
		if ops[i], err = tensorArg(op, in, i); err != nil {
			return nil, err
		}
		labels := []rune(specs[i])
		if len(labels) != ops[i].Rank() {
			return nil, fmt.Errorf("%s: %q labels %d dims of %v", op.Name, specs[i], len(labels), ops[i])
		}
		for d, l := range labels {
			if n, seen := size[l]; seen && n != ops[i].Shape[d] {
				return nil, fmt.Errorf("%s: label %q has sizes %d and %d", op.Name, l, n, ops[i].Shape[d])
			}
			size[l] = ops[i].Shape[d]
		}
	}
	outLabels := []rune(outSpec)
	shape := make([]int64, len(outLabels))
	inOut := map[rune]bool{}
	for i, l := range outLabels {
		n, seen := size[l]
		if !seen || inOut[l] {
			return nil, fmt.Errorf("%s: output label %q is unknown or repeated", op.Name, l)
		}
		inOut[l] = true
		shape[i] = n
	}
	var summed []rune
	seenSum := map[rune]bool{}
	for _, s := range specs {
		for _, l := range s {
			if !inOut[l] && !seenSum[l] {
				seenSum[l] = true
				summed = append(summed, l)
			}
		}
	}
	if err := checkComputedShape(op, 0, shape); err != nil {
		return nil, err
	}
	out, err := literal.New(computeResultDType(op, 0, ops[0].DType), shape)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", op.Name, err)
	}
	// every label gets a position in one odometer: output labels, then summed
	all := append(append([]rune(nil), outLabels...), summed...)
	pos := map[rune]int{}
	dims := make([]int64, len(all))
	for i, l := range all {
		pos[l] = i
		dims[i] = size[l]
	}
	strideOf := make([][]int, len(ops))
	for k, l := range ops {
		st := literal.Strides(l.Shape)
		s := make([]int, len(all))
		for d, lab := range []rune(specs[k]) {
			s[pos[lab]] += int(st[d])
		}
		strideOf[k] = s
	}
	nOut, nSum := elemCount(shape), elemCount(dims[len(outLabels):])
	idx := make([]int64, len(all))
	at := func(k int) int {
		o := 0
		for i, v := range idx {
			o += int(v) * strideOf[k][i]
		}
		return o
	}
	// step advances the odometer over dims [from, to)
	step := func(from, to int) {
		for d := to - 1; d >= from; d-- {
			idx[d]++
			if idx[d] < dims[d] {
				return
			}
			idx[d] = 0
		}
	}
	nf := len(outLabels)
	switch {
	case out.DType.IsComplex():
		vs := make([][]complex128, len(ops))
		for k, l := range ops {
			vs[k] = decodeComplexes(l)
		}
		res := make([]complex128, nOut)
		for o := range res {
			var s complex128
			for j := 0; j < nSum; j++ {
				p := complex(1, 0)
				for k := range ops {
					p *= vs[k][at(k)]
				}
				s += p
				step(nf, len(idx))
			}
			res[o] = s
			step(0, nf)
		}
		encodeComplexes(out, res)
	case out.DType.IsFloat():
		vs := make([][]float64, len(ops))
		for k, l := range ops {
			vs[k] = decodeFloats(l)
		}
		res := make([]float64, nOut)
		for o := range res {
			s := 0.0
			for j := 0; j < nSum; j++ {
				p := 1.0
				for k := range ops {
					p *= vs[k][at(k)]
				}
				s += p
				step(nf, len(idx))
			}
			res[o] = s
			step(0, nf)
		}
		encodeFloats(out, res)
	default:
		vs := make([][]int64, len(ops))
		for k, l := range ops {
			vs[k] = decodeInts(l)
		}
		res := make([]int64, nOut)
		for o := range res {
			var s int64
			for j := 0; j < nSum; j++ {
				p := int64(1)
				for k := range ops {
					p *= vs[k][at(k)]
				}
				s += p
				step(nf, len(idx))
			}
			res[o] = s
			step(0, nf)
		}
		encodeInts(out, res)
	}
	return []Value{out}, nil
}
