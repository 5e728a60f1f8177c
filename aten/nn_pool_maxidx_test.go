package aten

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"math/rand"
	"os"
	"path/filepath"
	"testing"

	_ "github.com/torchtpu/torchtpu/backend/native"
	"github.com/torchtpu/torchtpu/dtype"
	"github.com/torchtpu/torchtpu/literal"
)

// refMaxPool is PyTorch's CPU max-pool kernel on one (C, *spatial) input:
// the scan starts at the first valid position with maxval = lowest and
// takes a position when (val > maxval) || isnan(val).
func refMaxPool(x []float64, c int64, in, k, s, p, d, out []int64, lowest float64) ([]float64, []int64) {
	n := len(in)
	plane, oplane := numelOf(in), numelOf(out)
	vals, idx := make([]float64, c*oplane), make([]int64, c*oplane)
	for ch := int64(0); ch < c; ch++ {
		for f := int64(0); f < oplane; f++ {
			o := make([]int64, n)
			rem := f
			for i := n - 1; i >= 0; i-- {
				o[i], rem = rem%out[i], rem/out[i]
			}
			best, bi := lowest, int64(-1)
			pos := make([]int64, n)
			var walk func(dim int)
			walk = func(dim int) {
				if dim == n {
					flat := int64(0)
					for i := 0; i < n; i++ {
						flat = flat*in[i] + pos[i]
					}
					if bi < 0 {
						bi = flat
					}
					v := x[ch*plane+flat]
					if v > best || math.IsNaN(v) {
						best, bi = v, flat
					}
					return
				}
				for j := int64(0); j < k[dim]; j++ {
					q := o[dim]*s[dim] - p[dim] + j*d[dim]
					if q < 0 || q >= in[dim] {
						continue
					}
					pos[dim] = q
					walk(dim + 1)
				}
			}
			walk(0)
			vals[ch*oplane+f], idx[ch*oplane+f] = best, bi
		}
	}
	return vals, idx
}

func TestMaxPoolIndicesRule(t *testing.T) {
	type tc struct {
		dt         dtype.DType
		in         []int64
		k, s, p, d []int64
		ceil       bool
		nanP, infP float64
		levels     int
	}
	cases := []tc{
		{dtype.F32, []int64{6, 7}, []int64{3, 3}, []int64{2, 2}, []int64{1, 1}, []int64{1, 1}, false, 0.3, 0.1, 3},
		{dtype.F64, []int64{8, 9}, []int64{3, 2}, []int64{2, 1}, []int64{1, 0}, []int64{2, 1}, true, 0.2, 0.2, 2},
		{dtype.F32, []int64{5, 5}, []int64{2, 2}, []int64{2, 2}, []int64{0, 0}, []int64{1, 1}, true, 0, 0.6, 2},
		{dtype.F32, []int64{11, 12}, []int64{9, 9}, []int64{2, 3}, []int64{4, 3}, []int64{1, 1}, false, 0.05, 0.05, 3},
		{dtype.F64, []int64{4, 5, 6}, []int64{2, 3, 2}, []int64{1, 2, 2}, []int64{1, 1, 0}, []int64{1, 1, 2}, true, 0.25, 0.1, 2},
		{dtype.I64, []int64{7, 6}, []int64{3, 3}, []int64{2, 1}, []int64{1, 1}, []int64{1, 2}, false, 0, 0, 3},
		{dtype.I64, []int64{10, 10}, []int64{9, 9}, []int64{1, 1}, []int64{4, 4}, []int64{1, 1}, false, 0, 0, 2},
	}
	rng := rand.New(rand.NewSource(1))
	for ci, cs := range cases {
		t.Run(fmt.Sprintf("%d_%v_%dd", ci, cs.dt, len(cs.in)), func(t *testing.T) {
			n := len(cs.in)
			const ch = 2
			shape := append([]int64{ch}, cs.in...)
			lit, err := literal.New(cs.dt, shape)
			if err != nil {
				t.Fatal(err)
			}
			lowest := math.Inf(-1)
			if cs.dt == dtype.I64 {
				lowest = math.MinInt64
			}
			xs := make([]float64, numelOf(shape))
			for i := range xs {
				r := rng.Float64()
				switch {
				case r < cs.nanP:
					xs[i] = math.NaN()
				case r < cs.nanP+cs.infP:
					xs[i] = math.Inf(-1)
				default:
					xs[i] = float64(rng.Intn(cs.levels)) // many ties
				}
				if cs.dt == dtype.I64 {
					lit.SetInt64(i, int64(xs[i]))
				} else {
					lit.SetFloat64(i, xs[i])
				}
			}
			out := make([]int64, n)
			for i := range out {
				out[i] = poolOutSize(cs.in[i], cs.k[i], cs.p[i], cs.s[i], cs.d[i], cs.ceil)
			}
			wantV, wantI := refMaxPool(xs, ch, cs.in, cs.k, cs.s, cs.p, cs.d, out, lowest)

			got := runLoweredAll(t, fmt.Sprintf("aten::max_pool%dd_with_indices", n), []*literal.Literal{lit},
				[]Value{IntsValue(cs.k), IntsValue(cs.s), IntsValue(cs.p), IntsValue(cs.d), BoolValue(cs.ceil)}, nil)
			for i := range wantV {
				var gv float64
				if cs.dt == dtype.I64 {
					gv = float64(got[0].Int64(i))
				} else {
					gv = got[0].Float64(i)
				}
				sameV := gv == wantV[i] || math.IsNaN(gv) && math.IsNaN(wantV[i])
				if !sameV || got[1].Int64(i) != wantI[i] {
					t.Fatalf("out %d: got (%v, %d), want (%v, %d)", i, gv, got[1].Int64(i), wantV[i], wantI[i])
				}
			}
		})
	}
}

// BenchmarkMaxPoolIndices times resnet18's stem pool (1x64x112x112, k3 s2
// p1) with indices on the native backend: the strided-slice fold and the
// variadic reduce_window.
func BenchmarkMaxPoolIndices(b *testing.B) {
	for _, fold := range []bool{true, false} {
		b.Run(fmt.Sprintf("fold=%v", fold), func(b *testing.B) {
			saved := maxPoolFoldLimit
			defer func() { maxPoolFoldLimit = saved }()
			if !fold {
				maxPoolFoldLimit = 0
			}
			lit, err := literal.New(dtype.F32, []int64{1, 64, 112, 112})
			if err != nil {
				b.Fatal(err)
			}
			for i := 0; i < 64*112*112; i++ {
				lit.SetFloat64(i, float64(i%97))
			}
			exe := compileLowered(b, "aten::max_pool2d_with_indices", []*literal.Literal{lit}, []Value{IntsValue([]int64{3, 3}),
				IntsValue([]int64{2, 2}), IntsValue([]int64{1, 1}), IntsValue([]int64{1, 1}), BoolValue(false)}, nil)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if _, err := exe.Run(context.Background(), nil); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// runMaxPoolIdx lowers max_pool{n}d_with_indices of a constant and runs it
// on the native backend, returning (values, indices).
func runMaxPoolIdx(t *testing.T, lit *literal.Literal, n int, k, s, p, d []int64, ceil bool) (*literal.Literal, *literal.Literal) {
	t.Helper()
	got := runLoweredAll(t, fmt.Sprintf("aten::max_pool%dd_with_indices", n), []*literal.Literal{lit},
		[]Value{IntsValue(k), IntsValue(s), IntsValue(p), IntsValue(d), BoolValue(ceil)}, nil)
	return got[0], got[1]
}

// oracleNum decodes a number of testdata/maxpool/maxpool.json ("nan",
// "-inf", "inf" or a JSON number).
func oracleNum(t *testing.T, v any) float64 {
	switch x := v.(type) {
	case float64:
		return x
	case string:
		switch x {
		case "nan":
			return math.NaN()
		case "-inf":
			return math.Inf(-1)
		case "inf":
			return math.Inf(1)
		}
	}
	t.Fatalf("bad oracle number %v", v)
	return 0
}

// TestMaxPoolCases compares max_pool{1,2,3}d_with_indices exactly against
// PyTorch's CPU output, saved by testdata/maxpool/gen.py.
func TestMaxPoolCases(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("testdata", "maxpool", "maxpool.json"))
	if err != nil {
		t.Fatal(err)
	}
	var data struct {
		Cases []struct {
			N                 int
			Dtype             string
			Shape, K, S, P, D []int64
			Ceil              bool
			X, Values         []any
			Indices           []int64
		}
	}
	if err := json.Unmarshal(raw, &data); err != nil {
		t.Fatal(err)
	}
	dts := map[string]dtype.DType{"float32": dtype.F32, "float64": dtype.F64, "bfloat16": dtype.BF16, "int64": dtype.I64}
	for i, cs := range data.Cases {
		t.Run(fmt.Sprintf("%d_%s_%dd", i, cs.Dtype, cs.N), func(t *testing.T) {
			dt, ok := dts[cs.Dtype]
			if !ok {
				t.Fatalf("dtype %s", cs.Dtype)
			}
			lit, err := literal.New(dt, cs.Shape)
			if err != nil {
				t.Fatal(err)
			}
			for j, v := range cs.X {
				if dt == dtype.I64 {
					lit.SetInt64(j, int64(oracleNum(t, v)))
				} else {
					lit.SetFloat64(j, oracleNum(t, v))
				}
			}
			vals, idx := runMaxPoolIdx(t, lit, cs.N, cs.K, cs.S, cs.P, cs.D, cs.Ceil)
			for j, wv := range cs.Values {
				want := oracleNum(t, wv)
				var gv float64
				if dt == dtype.I64 {
					gv = float64(vals.Int64(j))
				} else {
					gv = vals.Float64(j)
				}
				if !(gv == want || math.IsNaN(gv) && math.IsNaN(want)) || idx.Int64(j) != cs.Indices[j] {
					t.Fatalf("out %d: got (%v, %d), PyTorch (%v, %d)", j, gv, idx.Int64(j), want, cs.Indices[j])
				}
			}
		})
	}
}

// TestAdaptiveMaxPoolCases compares adaptive_max_pool1d/2d/3d with
// PyTorch 2.14's CPU outputs (testdata/maxpool/adaptive.json, from
// gen_adaptive.py): values and indices exactly, with ties, several NaNs
// per bin (the last one wins) and -inf.
func TestAdaptiveMaxPoolCases(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("testdata", "maxpool", "adaptive.json"))
	if err != nil {
		t.Fatal(err)
	}
	var data struct {
		Cases []struct {
			N            int
			Dtype        string
			Shape, Osize []int64
			X, Values    []any
			Indices      []int64
		}
	}
	if err := json.Unmarshal(raw, &data); err != nil {
		t.Fatal(err)
	}
	dts := map[string]dtype.DType{"float32": dtype.F32, "float64": dtype.F64, "bfloat16": dtype.BF16}
	for i, cs := range data.Cases {
		t.Run(fmt.Sprintf("%d_%s_%dd", i, cs.Dtype, cs.N), func(t *testing.T) {
			dt, ok := dts[cs.Dtype]
			if !ok {
				t.Fatalf("dtype %s", cs.Dtype)
			}
			lit, err := literal.New(dt, cs.Shape)
			if err != nil {
				t.Fatal(err)
			}
			for j, v := range cs.X {
				lit.SetFloat64(j, oracleNum(t, v))
			}
			got := runLoweredAll(t, fmt.Sprintf("aten::adaptive_max_pool%dd", cs.N), []*literal.Literal{lit}, []Value{IntsValue(cs.Osize)}, nil)
			for j, wv := range cs.Values {
				want, gv := oracleNum(t, wv), got[0].Float64(j)
				if !(gv == want || math.IsNaN(gv) && math.IsNaN(want)) || got[1].Int64(j) != cs.Indices[j] {
					t.Fatalf("out %d: got (%v, %d), PyTorch (%v, %d)", j, gv, got[1].Int64(j), want, cs.Indices[j])
				}
			}
		})
	}
}
