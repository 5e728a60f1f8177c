package runtime

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/torchtpu/torchtpu/dtype"
	"github.com/torchtpu/torchtpu/literal"
	"github.com/torchtpu/torchtpu/pt2"
	"github.com/torchtpu/torchtpu/safetensors"
)

// TestBucketedTransformer100Lengths runs the dynamic-sequence transformer
// fixture at the 100 lengths 2..101 under pow2 bucketing: it must compile
// at most ceil(log2(101/2))+1 programs and match PyTorch at every length
// (testdata/dynseq/gen.py: full outputs for some lengths, four float64
// projections of every output position for all of them).
func TestBucketedTransformer100Lengths(t *testing.T) {
	root := sharedFixtures(t)
	p, err := pt2.Load(filepath.Join(root, "models", "transformer_encoder_dynamic_seq.pt2"))
	if err != nil {
		t.Fatal(err)
	}
	ref, err := safetensors.Load("testdata/dynseq/transformer_dynseq.safetensors")
	if err != nil {
		t.Fatal(err)
	}
	prog, err := FromPT2(p, "cpu")
	if err != nil {
		t.Fatal(err)
	}
	var log strings.Builder
	if err := prog.Configure(Options{Buckets: &BucketPolicy{Pow2: true}, Explain: true, Log: &log}); err != nil {
		t.Fatal(err)
	}
	x, probe := ref.Tensors["x"], ref.Tensors["probe"]
	const lo, hi = 2, 101
	for L := int64(lo); L <= hi; L++ {
		in, err := resize(x, []int64{2, L, 64})
		if err != nil {
			t.Fatal(err)
		}
		outs, _, err := prog.Run(context.Background(), []*literal.Literal{in})
		if err != nil {
			t.Fatalf("length %d: %v", L, err)
		}
		got := outs[0]
		if want := ref.Tensors[fmt.Sprintf("out.%d", L)]; want != nil {
			if c := Compare(got, want, DefaultTolerance(dtype.F32)); !c.OK {
				t.Errorf("length %d: output differs from PyTorch: %s (max abs %g)", L, c.Detail, c.MaxAbs)
			}
		}
		proj := project(got, probe)
		if c := Compare(proj, ref.Tensors[fmt.Sprintf("proj.%d", L)], Tolerance{RTol: 1e-5, ATol: 1e-4}); !c.OK {
			t.Errorf("length %d: projections differ from PyTorch's: %s (max abs %g)", L, c.Detail, c.MaxAbs)
		}
	}
	m := prog.Metrics().Snapshot()
	limit := int(math.Ceil(math.Log2(float64(hi)/float64(lo)))) + 1
	t.Logf("%d lengths %d..%d: %s; limit %d", hi-lo+1, lo, hi, prog.Metrics().Summary(), limit)
	if m.Compiles > limit || m.Compiles == 0 {
		t.Errorf("compiles = %d, want 1..%d", m.Compiles, limit)
	}
	if m.Bucketing == nil || !m.Bucketing.Enabled {
		t.Errorf("bucketing not enabled: %+v", m.Bucketing)
	}
	if len(m.Recompiles) != m.Compiles-1 || !strings.Contains(log.String(), "recompile") {
		t.Errorf("recompiles %d for %d compiles; log:\n%s", len(m.Recompiles), m.Compiles, log.String())
	}
}

// sharedFixtures is ../shared/fixtures (skipped when absent, except in CI).
func sharedFixtures(t *testing.T) string {
	dir := filepath.Join("..", "..", "shared", "fixtures")
	if _, err := os.Stat(dir); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("fixtures missing in CI: %v", err)
		}
		t.Skipf("fixtures missing: %v", err)
	}
	return dir
}

// project returns out[..., 64] @ probe[64, 4] computed in float64.
func project(out, probe *literal.Literal) *literal.Literal {
	k, n := probe.Shape[0], probe.Shape[1]
	rows := int64(out.Len()) / k
	shape := append(append([]int64{}, out.Shape[:len(out.Shape)-1]...), n)
	res, _ := literal.New(dtype.F32, shape)
	for r := int64(0); r < rows; r++ {
		for j := int64(0); j < n; j++ {
			var s float64
			for i := int64(0); i < k; i++ {
				s += out.Float64(int(r*k+i)) * probe.Float64(int(i*n+j))
			}
			res.SetFloat64(int(r*n+j), float64(float32(s)))
		}
	}
	return res
}

// TestBucketingRefused: a program that sums over a dim derived from the
// symbolic one keeps exact shapes, says why, and stays correct.
func TestBucketingRefused(t *testing.T) {
	p, err := pt2.Load("testdata/oracle/dyn_view.pt2")
	if err != nil {
		t.Fatal(err)
	}
	io, err := safetensors.Load("testdata/oracle/dyn_view.io.safetensors")
	if err != nil {
		t.Fatal(err)
	}
	prog, err := FromPT2(p, "cpu")
	if err != nil {
		t.Fatal(err)
	}
	var log strings.Builder
	if err := prog.Configure(Options{Buckets: &BucketPolicy{Sizes: []int64{8, 16}}, Log: &log}); err != nil {
		t.Fatal(err)
	}
	outs, _, err := prog.Run(context.Background(), io.Inputs())
	if err != nil {
		t.Fatal(err)
	}
	if c := Compare(outs[0], io.Outputs()[0], DefaultTolerance(dtype.F32)); !c.OK {
		t.Errorf("output differs: %s", c.Detail)
	}
	b := prog.Metrics().Snapshot().Bucketing
	if b == nil || b.Enabled || b.Reason == "" || !strings.Contains(log.String(), "bucketing off") {
		t.Errorf("want bucketing refused with a reason, got %+v, log %q", b, log.String())
	}
	t.Logf("reason: %s", b.Reason)
}

func TestBucketSizes(t *testing.T) {
	pow2 := &BucketPolicy{Pow2: true}
	list := &BucketPolicy{Sizes: []int64{32, 8, 16}}
	for _, c := range []struct{ v, pow2, list int64 }{{1, 1, 8}, {2, 2, 8}, {3, 4, 8}, {9, 16, 16}, {17, 32, 32}, {33, 64, 33}} {
		if g := pow2.Bucket(c.v); g != c.pow2 {
			t.Errorf("pow2 bucket of %d = %d, want %d", c.v, g, c.pow2)
		}
		if g := list.Bucket(c.v); g != c.list {
			t.Errorf("list bucket of %d = %d, want %d", c.v, g, c.list)
		}
	}
}
