package legalize

// The padding rules: which ops keep the valid positions of a padded dim,
// and the masks the others need.

import (
	"fmt"

	"github.com/torchtpu/torchtpu/literal"
	"github.com/torchtpu/torchtpu/stablehlo"
)

// elementwise ops: every operand of the result's shape.
var padElementwise = func() map[string]bool {
	m := map[string]bool{"stablehlo.compare": true, "stablehlo.select": true, "stablehlo.clamp": true,
		"stablehlo.convert": true, "stablehlo.is_finite": true, "stablehlo.abs": true, "stablehlo.real": true,
		"stablehlo.imag": true, "stablehlo.complex": true, "stablehlo.optimization_barrier": true}
	for _, n := range stablehlo.UnaryOps {
		m[n] = true
	}
	for _, n := range stablehlo.BinaryOps {
		m[n] = true
	}
	return m
}()

func (pa *padAnalysis) padded(v *stablehlo.Value) map[int]int64 { return pa.dims[v] }

// op checks one op of the program refined at B against its twin.
func (pa *padAnalysis) op(op, o2 *stablehlo.Op) error {
	anyPadded := false
	for _, v := range op.Operands {
		if len(pa.padded(v)) > 0 {
			anyPadded = true
		}
	}
	for _, v := range op.Results {
		if len(pa.padded(v)) > 0 {
			anyPadded = true
		}
	}
	if !anyPadded {
		return nil
	}
	switch {
	case op.Name == "func.return", op.Name == "stablehlo.iota", op.Name == "stablehlo.constant":
		return nil
	case padElementwise[op.Name]:
		res := pa.padded(op.Results[0])
		for _, v := range op.Operands {
			t := stablehlo.AsTensor(v.Type)
			if t == nil || t.Rank() == 0 {
				continue // a scalar operand (select's predicate, clamp's bounds)
			}
			if !sameDims(pa.padded(v), res) {
				return fmt.Errorf("operands disagree on the padded dims")
			}
		}
		return nil
	case op.Name == "stablehlo.bitcast_convert":
		t1, t2 := stablehlo.AsTensor(op.Operands[0].Type), stablehlo.AsTensor(op.Results[0].Type)
		if t1 == nil || t2 == nil || t1.Rank() != t2.Rank() || !sameDims(pa.padded(op.Operands[0]), pa.padded(op.Results[0])) {
			return fmt.Errorf("changes the rank of a padded tensor")
		}
		return nil
	case op.Name == "stablehlo.broadcast_in_dim":
		dims, _ := op.Ints("broadcast_dimensions")
		res := pa.padded(op.Results[0])
		for i, c := range pa.padded(op.Operands[0]) {
			if i >= len(dims) {
				return fmt.Errorf("bad broadcast_dimensions")
			}
			if rc, ok := res[int(dims[i])]; !ok || rc != c {
				return fmt.Errorf("a padded dim broadcast to another size")
			}
		}
		return nil
	case op.Name == "stablehlo.transpose":
		perm, _ := op.Ints("permutation")
		want := map[int]int64{}
		for i, p := range perm {
			if c, ok := pa.padded(op.Operands[0])[int(p)]; ok {
				want[i] = c
			}
		}
		if !sameDims(want, pa.padded(op.Results[0])) {
			return fmt.Errorf("transpose moves padded dims inconsistently")
		}
		return nil
	case op.Name == "stablehlo.reshape":
		return pa.reshape(op)
	case op.Name == "stablehlo.dot_general":
		return pa.dot(op)
	case op.Name == "stablehlo.reduce":
		return pa.reduce(op)
	case op.Name == "stablehlo.slice":
		return pa.slice(op)
	case op.Name == "stablehlo.concatenate":
		d, _ := op.Int("dimension")
		for _, v := range append(append([]*stablehlo.Value{}, op.Operands...), op.Results...) {
			if _, ok := pa.padded(v)[int(d)]; ok {
				return fmt.Errorf("concatenates along a padded dim")
			}
		}
		for _, v := range op.Operands {
			if !sameDims(pa.padded(v), pa.padded(op.Results[0])) {
				return fmt.Errorf("pieces disagree on the padded dims")
			}
		}
		return nil
	case op.Name == "stablehlo.pad":
		lo, _ := op.Ints("edge_padding_low")
		hi, _ := op.Ints("edge_padding_high")
		in, _ := op.Ints("interior_padding")
		for d := range pa.padded(op.Operands[0]) {
			if d >= len(lo) || lo[d] != 0 || hi[d] != 0 || in[d] != 0 {
				return fmt.Errorf("pads a padded dim")
			}
		}
		return nil
	case op.Name == "stablehlo.sort":
		d, _ := op.Int("dimension")
		for _, v := range op.Operands {
			if _, ok := pa.padded(v)[int(d)]; ok {
				return fmt.Errorf("sorts along a padded dim")
			}
		}
		return nil
	}
	return fmt.Errorf("is not known to keep the valid positions of a padded dim")
}

func sameDims(a, b map[int]int64) bool {
	if len(a) != len(b) {
		return false
	}
	for d, c := range a {
		if bc, ok := b[d]; !ok || bc != c {
			return false
		}
	}
	return true
}

// reshape keeps each padded dim whole: the dims before it hold as many
// elements in the operand as before its image in the result.
func (pa *padAnalysis) reshape(op *stablehlo.Op) error {
	in, out := stablehlo.AsTensor(op.Operands[0].Type), stablehlo.AsTensor(op.Results[0].Type)
	if in == nil || out == nil {
		return fmt.Errorf("non-tensor reshape")
	}
	prefix := func(shape []int64, d int) int64 {
		p := int64(1)
		for _, n := range shape[:d] {
			p *= n
		}
		return p
	}
	want := map[int]int64{}
	for d, c := range pa.padded(op.Operands[0]) {
		found := false
		for q := range out.Shape {
			if out.Shape[q] == in.Shape[d] && prefix(out.Shape, q) == prefix(in.Shape, d) {
				want[q], found = c, true
				break
			}
		}
		if !found {
			return fmt.Errorf("merges a padded dim with others")
		}
	}
	if !sameDims(want, pa.padded(op.Results[0])) {
		return fmt.Errorf("reshape moves padded dims inconsistently")
	}
	return nil
}

func (pa *padAnalysis) dot(op *stablehlo.Op) error {
	dd, ok := op.Attr("dot_dimension_numbers").(*stablehlo.DotDims)
	if !ok {
		return fmt.Errorf("no dot_dimension_numbers")
	}
	lp, rp := pa.padded(op.Operands[0]), pa.padded(op.Operands[1])
	lm, rm := map[int]int64{}, map[int]int64{}
	for i := range dd.LhsContractingDims {
		l, r := int(dd.LhsContractingDims[i]), int(dd.RhsContractingDims[i])
		lc, lok := lp[l]
		rc, rok := rp[r]
		if lok != rok || lc != rc {
			return fmt.Errorf("contracted dims disagree in padding")
		}
		if lok {
			lm[l], rm[r] = lc, rc
		}
	}
	for i := range dd.LhsBatchingDims {
		l, r := int(dd.LhsBatchingDims[i]), int(dd.RhsBatchingDims[i])
		lc, lok := lp[l]
		rc, rok := rp[r]
		if lok != rok || lc != rc {
			return fmt.Errorf("batch dims disagree in padding")
		}
	}
	if len(lm) > 0 {
		pa.addMask(op, maskAt{operand: 0, dims: lm, fill: zeroOf(op.Operands[0])})
		pa.addMask(op, maskAt{operand: 1, dims: rm, fill: zeroOf(op.Operands[1])})
	}
	return nil
}

func (pa *padAnalysis) addMask(op *stablehlo.Op, m maskAt) {
	if pa.masks == nil {
		pa.masks = map[*stablehlo.Op][]maskAt{}
	}
	pa.masks[op] = append(pa.masks[op], m)
}

func zeroOf(v *stablehlo.Value) *literal.Literal {
	t := stablehlo.AsTensor(v.Type)
	l, _ := literal.New(t.DType(), nil)
	return l
}

// reduce masks each input with its init value along the reduced padded
// dims (the init is the reduction's identity, as every frontend writes
// it); the inits must be constants.
func (pa *padAnalysis) reduce(op *stablehlo.Op) error {
	n := len(op.Operands) / 2
	dims, _ := op.Ints("dimensions")
	red := map[int]bool{}
	for _, d := range dims {
		red[int(d)] = true
	}
	for i := 0; i < n; i++ {
		m := map[int]int64{}
		for d, c := range pa.padded(op.Operands[i]) {
			if red[d] {
				m[d] = c
			}
		}
		if len(m) == 0 {
			continue
		}
		init, ok := denseValue(op.Operands[n+i].Def)
		if !ok || init.Len() != 1 {
			return fmt.Errorf("reduces a padded dim with an init value that is not a constant")
		}
		pa.addMask(op, maskAt{operand: i, dims: m, fill: init})
	}
	return nil
}

// slice keeps a padded dim whole.
func (pa *padAnalysis) slice(op *stablehlo.Op) error {
	start, _ := op.Ints("start_indices")
	limit, _ := op.Ints("limit_indices")
	strides, _ := op.Ints("strides")
	in := stablehlo.AsTensor(op.Operands[0].Type)
	for d := range pa.padded(op.Operands[0]) {
		if d >= len(start) || start[d] != 0 || limit[d] != in.Shape[d] || (len(strides) > d && strides[d] != 1) {
			return fmt.Errorf("slices a padded dim other than whole")
		}
	}
	if !sameDims(pa.padded(op.Operands[0]), pa.padded(op.Results[0])) {
		return fmt.Errorf("slice changes the padded dims")
	}
	return nil
}
