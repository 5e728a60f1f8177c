package runtime

import (
	"context"
	"math"
	"path/filepath"
	"testing"

	"github.com/torchtpu/torchtpu/dtype"
	"github.com/torchtpu/torchtpu/literal"
	"github.com/torchtpu/torchtpu/pt2"
	"github.com/torchtpu/torchtpu/safetensors"
)

// TestBucketedGPT2Generate runs the two graphs torch.compile hands the
// backend for GPT-2's generate() (testdata/bucketing/gen_gpt2.py: the prompt's
// prefill and the one-token decode beside a KV cache) at lengths 5..24
// under pow2 bucketing and at exact shapes, on the native backend: the
// bucketed runs must give the exact runs' outputs, from at most one
// compile per bucket (8, 16, 32). The graphs exercise the padding rules
// of masking_utils' mask building (cat before the padded piece, slices
// of it, arange, index.Tensor by position, cumsum, any), the attention
// (bmm over a padded dim, softmax), the last-token slice and the KV
// cache's cat after the padded piece.
func TestBucketedGPT2Generate(t *testing.T) {
	for _, name := range []string{"prefill", "decode"} {
		t.Run(name, func(t *testing.T) {
			p, err := pt2.Load(filepath.Join("testdata", "bucketing", name+".pt2"))
			if err != nil {
				t.Fatal(err)
			}
			io, err := safetensors.Load(filepath.Join("testdata", "bucketing", name+".io.safetensors"))
			if err != nil {
				t.Fatal(err)
			}
			exact, err := FromPT2(p, "cpu")
			if err != nil {
				t.Fatal(err)
			}
			bucketed, err := FromPT2(p, "cpu")
			if err != nil {
				t.Fatal(err)
			}
			if err := exact.Configure(Options{Buckets: &BucketPolicy{Exact: true}}); err != nil {
				t.Fatal(err)
			}
			if err := bucketed.Configure(Options{Buckets: &BucketPolicy{Pow2: true}}); err != nil {
				t.Fatal(err)
			}
			names := exact.userTensorInputs()
			base := make([]*literal.Literal, len(names))
			for i := range names {
				if base[i] = io.Tensors[inputName(i)]; base[i] == nil {
					t.Fatalf("%s: no %s in the I/O file", name, inputName(i))
				}
			}
			for L := int64(5); L <= 24; L++ {
				ins := make([]*literal.Literal, len(base))
				for i, b := range base {
					ins[i] = b
					m := exact.Graph.Tensor(names[i])
					shape := append([]int64{}, b.Shape...)
					changed := false
					for d, dim := range m.Shape {
						if !dim.IsStatic() {
							shape[d], changed = L, true
						}
					}
					if changed {
						ins[i] = sampleLike(t, b, shape)
					}
				}
				want, _, err := exact.Run(context.Background(), ins)
				if err != nil {
					t.Fatalf("length %d, exact: %v", L, err)
				}
				got, _, err := bucketed.Run(context.Background(), ins)
				if err != nil {
					t.Fatalf("length %d, bucketed: %v", L, err)
				}
				for o := range want {
					if c := Compare(got[o], want[o], Tolerance{RTol: 1e-5, ATol: 1e-6}); !c.OK {
						t.Errorf("length %d output %d: bucketed differs from exact: %s", L, o, c.Detail)
					}
				}
			}
			m := bucketed.Metrics().Snapshot()
			if m.Bucketing == nil || !m.Bucketing.Enabled {
				t.Fatalf("bucketing refused: %+v", m.Bucketing)
			}
			if m.Compiles > 3 {
				t.Errorf("%d compiles for lengths 5..24 in pow2 buckets, want at most 3", m.Compiles)
			}
		})
	}
}

func inputName(i int) string { return "input." + itoa(i) }

func itoa(i int) string {
	if i < 10 {
		return string(rune('0' + i))
	}
	return itoa(i/10) + string(rune('0'+i%10))
}

// sampleLike makes a tensor of b's dtype and the given shape with
// deterministic values: token and position ids in [0, 60), floats in
// [-1, 1].
func sampleLike(t *testing.T, b *literal.Literal, shape []int64) *literal.Literal {
	l, err := literal.New(b.DType, shape)
	if err != nil {
		t.Fatal(err)
	}
	for j := 0; j < l.Len(); j++ {
		if b.DType.IsInteger() {
			l.SetInt64(j, int64((j*7+3)%60))
		} else {
			l.SetFloat64(j, math.Sin(float64(j)*0.37))
		}
	}
	return l
}

// TestBucketedMasks runs testdata/bucketing/reduce.pt2 (gen_reduce.py:
// sum, mean, amax, amin, any, softmax, log_softmax, a bmm, argmax,
// cumsum and the last position, all across a dynamic dim, after an exp
// that makes the zero padding non-zero) at lengths 2..20 bucketed and
// exact: every output must agree, so every mask is in place.
func TestBucketedMasks(t *testing.T) {
	p, err := pt2.Load(filepath.Join("testdata", "bucketing", "reduce.pt2"))
	if err != nil {
		t.Fatal(err)
	}
	exact, err := FromPT2(p, "cpu")
	if err != nil {
		t.Fatal(err)
	}
	bucketed, err := FromPT2(p, "cpu")
	if err != nil {
		t.Fatal(err)
	}
	if err := exact.Configure(Options{Buckets: &BucketPolicy{Exact: true}}); err != nil {
		t.Fatal(err)
	}
	if err := bucketed.Configure(Options{Buckets: &BucketPolicy{Pow2: true}}); err != nil {
		t.Fatal(err)
	}
	for L := int64(2); L <= 20; L++ {
		x, err := literal.New(dtype.F32, []int64{2, L, 3})
		if err != nil {
			t.Fatal(err)
		}
		x = sampleLike(t, x, []int64{2, L, 3})
		want, _, err := exact.Run(context.Background(), []*literal.Literal{x})
		if err != nil {
			t.Fatalf("length %d, exact: %v", L, err)
		}
		got, _, err := bucketed.Run(context.Background(), []*literal.Literal{x})
		if err != nil {
			t.Fatalf("length %d, bucketed: %v", L, err)
		}
		for o := range want {
			if c := Compare(got[o], want[o], Tolerance{RTol: 1e-6, ATol: 1e-6}); !c.OK {
				t.Errorf("length %d output %d: bucketed differs from exact: %s", L, o, c.Detail)
			}
		}
	}
	m := bucketed.Metrics().Snapshot()
	if m.Bucketing == nil || !m.Bucketing.Enabled {
		t.Fatalf("bucketing refused: %+v", m.Bucketing)
	}
	if m.Compiles > 5 {
		t.Errorf("%d compiles for lengths 2..20 in pow2 buckets, want at most 5", m.Compiles)
	}
}
