package native

// convolution and dynamic_conv.
//
// The kernel brings lhs to [batch, feature, spatial...] and rhs to
// [out_feature, in_feature, spatial...], lowers each (batch group, feature
// group) to one matrix product over an im2col matrix, and permutes the
// result from [batch, feature, spatial...] to the output layout.

import (
	"fmt"

	"github.com/torchtpu/torchtpu/literal"
	"github.com/torchtpu/torchtpu/stablehlo"
)

func init() {
	register("stablehlo.convolution", evalConvolution)
	register("stablehlo.dynamic_conv", evalConvolution)
}

// convParams are the window attributes of a convolution, one per spatial
// dim.
type convParams struct {
	dims                   *stablehlo.ConvDims
	stride, lhsDil, rhsDil []int64
	padLo, padHi           []int64
	reverse                []bool
	featureGroups          int
	batchGroups            int
}

func evalConvolution(env Env, op *stablehlo.Op, in []Value) ([]Value, error) {
	lhs, err := tensorArg(op, in, 0)
	if err != nil {
		return nil, err
	}
	rhs, err := tensorArg(op, in, 1)
	if err != nil {
		return nil, err
	}
	cp, err := readConvParams(op, in)
	if err != nil {
		return nil, err
	}
	out, err := convolve(op, lhs, rhs, cp)
	if err != nil {
		return nil, err
	}
	return []Value{out}, nil
}

func readConvParams(op *stablehlo.Op, in []Value) (*convParams, error) {
	dims, ok := op.Attr("dimension_numbers").(*stablehlo.ConvDims)
	if !ok {
		return nil, fmt.Errorf("%s: missing dimension_numbers", op.Name)
	}
	ns := len(dims.InputSpatialDims)
	if len(dims.KernelSpatialDims) != ns || len(dims.OutputSpatialDims) != ns {
		return nil, fmt.Errorf("%s: dimension_numbers have %d input, %d kernel and %d output spatial dims", op.Name, ns, len(dims.KernelSpatialDims), len(dims.OutputSpatialDims))
	}
	cp := &convParams{dims: dims, featureGroups: 1, batchGroups: 1}
	ones := func(name string) ([]int64, error) {
		v, ok := op.Ints(name)
		if !ok {
			if op.Attr(name) != nil {
				return nil, fmt.Errorf("%s: %s is not an integer list", op.Name, name)
			}
			v = make([]int64, ns)
			for i := range v {
				v[i] = 1
			}
			return v, nil
		}
		if len(v) != ns {
			return nil, fmt.Errorf("%s: %s has %d entries, want %d", op.Name, name, len(v), ns)
		}
		for _, x := range v {
			if x < 1 {
				return nil, fmt.Errorf("%s: %s must be positive, got %v", op.Name, name, v)
			}
		}
		return v, nil
	}
	var err error
	if cp.stride, err = ones("window_strides"); err != nil {
		return nil, err
	}
	if cp.lhsDil, err = ones("lhs_dilation"); err != nil {
		return nil, err
	}
	if cp.rhsDil, err = ones("rhs_dilation"); err != nil {
		return nil, err
	}
	var pad []int64
	if op.Name == "stablehlo.dynamic_conv" {
		pl, err := tensorArg(op, in, 2)
		if err != nil {
			return nil, err
		}
		pad = decodeInts(pl)
		if len(pad) != 2*ns {
			return nil, fmt.Errorf("%s: padding operand %v, want %dx2", op.Name, pl, ns)
		}
	} else if a := op.Attr("padding"); a != nil {
		v, ok := stablehlo.AttrInts(a)
		if !ok || len(v) != 2*ns {
			return nil, fmt.Errorf("%s: padding must hold %dx2 integers", op.Name, ns)
		}
		pad = v
	} else {
		pad = make([]int64, 2*ns)
	}
	cp.padLo, cp.padHi = make([]int64, ns), make([]int64, ns)
	for i := 0; i < ns; i++ {
		cp.padLo[i], cp.padHi[i] = pad[2*i], pad[2*i+1]
	}
	cp.reverse = make([]bool, ns)
	if a := op.Attr("window_reversal"); a != nil {
		v, ok := stablehlo.AttrInts(a)
		if !ok || len(v) != ns {
			return nil, fmt.Errorf("%s: window_reversal must hold %d booleans", op.Name, ns)
		}
		for i, x := range v {
			cp.reverse[i] = x != 0
		}
	}
	if g, ok := op.Int("feature_group_count"); ok {
		cp.featureGroups = int(g)
	}
	if g, ok := op.Int("batch_group_count"); ok {
		cp.batchGroups = int(g)
	}
	if cp.featureGroups < 1 || cp.batchGroups < 1 || (cp.featureGroups > 1 && cp.batchGroups > 1) {
		return nil, fmt.Errorf("%s: feature_group_count %d and batch_group_count %d: both must be positive and at most one above 1", op.Name, cp.featureGroups, cp.batchGroups)
	}
	return cp, nil
}

// convolve computes the convolution into a literal of the result type.
func convolve(op *stablehlo.Op, lhs, rhs *literal.Literal, cp *convParams) (*literal.Literal, error) {
	d := cp.dims
	ns := len(d.InputSpatialDims)
	if lhs.Rank() != ns+2 || rhs.Rank() != ns+2 {
		return nil, fmt.Errorf("%s: operands %v and %v must have rank %d", op.Name, lhs, rhs, ns+2)
	}
	lperm := append([]int{int(d.InputBatchDim), int(d.InputFeatureDim)}, convInts(d.InputSpatialDims)...)
	rperm := append([]int{int(d.KernelOutputFeatureDim), int(d.KernelInputFeatureDim)}, convInts(d.KernelSpatialDims)...)
	operm := append([]int{int(d.OutputBatchDim), int(d.OutputFeatureDim)}, convInts(d.OutputSpatialDims)...)
	for _, p := range [][]int{lperm, rperm, operm} {
		if !convIsPerm(p) {
			return nil, fmt.Errorf("%s: dimension_numbers %v are not a permutation of the dims", op.Name, p)
		}
	}
	batch, inC := int(lhs.Shape[lperm[0]]), int(lhs.Shape[lperm[1]])
	outC, kerC := int(rhs.Shape[rperm[0]]), int(rhs.Shape[rperm[1]])
	fg, bg := cp.featureGroups, cp.batchGroups
	if inC != kerC*fg {
		return nil, fmt.Errorf("%s: input features %d != kernel input features %d * feature_group_count %d", op.Name, inC, kerC, fg)
	}
	if outC%fg != 0 || outC%bg != 0 || batch%bg != 0 {
		return nil, fmt.Errorf("%s: output features %d / batch %d not divisible by the group counts (%d, %d)", op.Name, outC, batch, fg, bg)
	}
	inSp := make([]int64, ns)
	kSp := make([]int64, ns)
	outSp := make([]int64, ns)
	for i := 0; i < ns; i++ {
		inSp[i] = lhs.Shape[lperm[2+i]]
		kSp[i] = rhs.Shape[rperm[2+i]]
		dilIn := int64(0)
		if inSp[i] > 0 {
			dilIn = (inSp[i]-1)*cp.lhsDil[i] + 1
		}
		padded := dilIn + cp.padLo[i] + cp.padHi[i]
		dilK := int64(0)
		if kSp[i] > 0 {
			dilK = (kSp[i]-1)*cp.rhsDil[i] + 1
		}
		if padded < dilK || dilK == 0 {
			outSp[i] = 0
		} else {
			outSp[i] = (padded-dilK)/cp.stride[i] + 1
		}
	}
	outBatch := batch / bg
	canon := append([]int64{int64(outBatch), int64(outC)}, outSp...)
	oshape := make([]int64, ns+2)
	for i, p := range operm {
		oshape[p] = canon[i]
	}
	if err := checkComputedShape(op, 0, oshape); err != nil {
		return nil, err
	}
	out, err := literal.New(computeResultDType(op, 0, lhs.DType), oshape)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", op.Name, err)
	}
	g := &convGeom{
		batch: batch, outBatch: outBatch, inC: inC, kerC: kerC, outC: outC, fg: fg, bg: bg,
		inSp: elemCount(inSp), kSp: elemCount(kSp), outSp: elemCount(outSp),
	}
	g.table = convTable(inSp, kSp, outSp, cp)
	lidx := permIndexOrNil(lhs.Shape, lperm)
	ridx := permIndexOrNil(rhs.Shape, rperm)
	// canonical result [outBatch, outC, outSp] back to the output layout
	inv := make([]int, ns+2)
	for i, p := range operm {
		inv[p] = i
	}
	oidx := permIndexOrNil(canon, inv)
	switch accumulatorFor(out.DType) {
	case accF64:
		encodeFloats(out, reorder(convRun(g, loadF64(lhs, lidx), loadF64(rhs, ridx), gemmF64), oidx))
	case accF32:
		encodeFloats(out, fromF32s(reorder(convRun(g, loadF32(lhs, lidx), loadF32(rhs, ridx), gemmF32), oidx)))
	case accC128:
		encodeComplexes(out, reorder(convRun(g, loadC128(lhs, lidx), loadC128(rhs, ridx), gemmC128), oidx))
	case accC64:
		c := convRun(g, toC64s(loadC128(lhs, lidx)), toC64s(loadC128(rhs, ridx)), gemmC64)
		encodeComplexes(out, fromC64s(reorder(c, oidx)))
	default:
		encodeInts(out, reorder(convRun(g, loadI64(lhs, lidx), loadI64(rhs, ridx), gemmI64), oidx))
	}
	return out, nil
}

// convGeom is a convolution in canonical layouts with flattened spatial
// dims; table[o*kSp+k] is the input spatial index that output position o
// reads for kernel position k, or -1 for padding and dilation holes.
type convGeom struct {
	batch, outBatch, inC, kerC, outC, fg, bg int
	inSp, kSp, outSp                         int
	table                                    []int
}

// convTable maps (output position, kernel position) to an input position.
func convTable(inSp, kSp, outSp []int64, cp *convParams) []int {
	ns := len(inSp)
	// per dim: pos[d][o*k+kk] = input index or -1
	per := make([][]int, ns)
	for d := 0; d < ns; d++ {
		o, k := int(outSp[d]), int(kSp[d])
		t := make([]int, o*k)
		for oi := 0; oi < o; oi++ {
			for ki := 0; ki < k; ki++ {
				kk := ki
				if cp.reverse[d] {
					kk = k - 1 - ki
				}
				pos := int64(oi)*cp.stride[d] + int64(ki)*cp.rhsDil[d] - cp.padLo[d]
				idx := -1
				if pos >= 0 && pos%cp.lhsDil[d] == 0 && pos/cp.lhsDil[d] < inSp[d] {
					idx = int(pos / cp.lhsDil[d])
				}
				t[oi*k+kk] = idx
			}
		}
		per[d] = t
	}
	no, nk := elemCount(outSp), elemCount(kSp)
	table := make([]int, no*nk)
	oIdx := make([]int, ns)
	kIdx := make([]int, ns)
	inStr := literal.Strides(inSp)
	for o := 0; o < no; o++ {
		rem := o
		for d := ns - 1; d >= 0; d-- {
			oIdx[d] = rem % int(outSp[d])
			rem /= int(outSp[d])
		}
		for k := 0; k < nk; k++ {
			rem := k
			for d := ns - 1; d >= 0; d-- {
				kIdx[d] = rem % int(kSp[d])
				rem /= int(kSp[d])
			}
			at := 0
			for d := 0; d < ns; d++ {
				v := per[d][oIdx[d]*int(kSp[d])+kIdx[d]]
				if v < 0 {
					at = -1
					break
				}
				at += v * int(inStr[d])
			}
			table[o*nk+k] = at
		}
	}
	return table
}

// convRun evaluates the canonical convolution: lhs [batch, inC, inSp],
// rhs [outC, kerC, kSp]; result [outBatch, outC, outSp].
func convRun[T gemmElem](g *convGeom, lhs, rhs []T, gemm func(b, m, k, n int, a, bm, c []T)) []T {
	out := make([]T, g.outBatch*g.outC*g.outSp)
	groups := g.fg * g.bg
	ocPer := g.outC / groups
	rows := g.outBatch * g.outSp // im2col rows: (n, o)
	cols := g.kSp * g.kerC       // im2col cols: (k, c), so each sum runs over kernel positions outside, features inside
	// the im2col matrix is built for a band of rows at a time, so that its
	// size stays bounded whatever the batch and image sizes
	band := max(1, convBandElems/max(cols, 1))
	band = min(band, rows)
	col := make([]T, band*cols)
	wt := make([]T, cols*ocPer)
	res := make([]T, band*ocPer)
	var zero T
	for grp := 0; grp < groups; grp++ {
		cBase, bBase := 0, 0
		if g.fg > 1 {
			cBase = grp * g.kerC
		}
		if g.bg > 1 {
			bBase = grp * g.outBatch
		}
		for oc := 0; oc < ocPer; oc++ {
			w := rhs[(grp*ocPer+oc)*cols : (grp*ocPer+oc+1)*cols] // [kerC][kSp]
			for c := 0; c < g.kerC; c++ {
				for k := 0; k < g.kSp; k++ {
					wt[(k*g.kerC+c)*ocPer+oc] = w[c*g.kSp+k]
				}
			}
		}
		for r0 := 0; r0 < rows; r0 += band {
			r1 := min(r0+band, rows)
			for r := r0; r < r1; r++ {
				n, o := r/g.outSp, r%g.outSp
				tab := g.table[o*g.kSp : (o+1)*g.kSp]
				row := col[(r-r0)*cols : (r-r0+1)*cols]
				for c := 0; c < g.kerC; c++ {
					src := lhs[((bBase+n)*g.inC+cBase+c)*g.inSp:]
					for k, at := range tab {
						if at >= 0 {
							row[k*g.kerC+c] = src[at]
						} else {
							row[k*g.kerC+c] = zero
						}
					}
				}
			}
			gemm(1, r1-r0, cols, ocPer, col[:(r1-r0)*cols], wt, res[:(r1-r0)*ocPer])
			for r := r0; r < r1; r++ {
				n, o := r/g.outSp, r%g.outSp
				for oc := 0; oc < ocPer; oc++ {
					out[(n*g.outC+grp*ocPer+oc)*g.outSp+o] = res[(r-r0)*ocPer+oc]
				}
			}
		}
	}
	return out
}

// convBandElems bounds the im2col band of convRun (elements); a variable
// so that a test can force many bands.
var convBandElems = 1 << 22

func convInts(v []int64) []int {
	out := make([]int, len(v))
	for i, x := range v {
		out[i] = int(x)
	}
	return out
}

func convIsPerm(p []int) bool {
	seen := make([]bool, len(p))
	for _, x := range p {
		if x < 0 || x >= len(p) || seen[x] {
			return false
		}
		seen[x] = true
	}
	return true
}

// reorder permutes v by idx (nil: unchanged).
func reorder[T any](v []T, idx []int) []T {
	if idx == nil {
		return v
	}
	return gatherByIndex(v, idx)
}
