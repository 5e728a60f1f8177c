package native

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/torchtpu/torchtpu/stablehlo"
)

func init() {
	// ReLU6 after batch norm as aten lowers hardtanh (nanMax, nanMin:
	// maximum and minimum wrapped in nanSelect's isnan selects, the
	// bounds splat constants), with 13x13 planes (runs that end in
	// partial vectors); and maximum and minimum of rows, of per-channel
	// values on either side, and of a row with itself.
	fuseModules["relu6"] = `func.func @main(%x: tensor<2x8x13x13xf32>, %s: tensor<8xf32>, %b: tensor<8xf32>, %y: tensor<2x8x13x13xf32>) -> (tensor<2x8x13x13xf32>, tensor<2x8x13x13xf32>, tensor<2x8x13x13xf32>) {
  %sb = stablehlo.broadcast_in_dim %s, dims = [1] : (tensor<8xf32>) -> tensor<2x8x13x13xf32>
  %bb = stablehlo.broadcast_in_dim %b, dims = [1] : (tensor<8xf32>) -> tensor<2x8x13x13xf32>
  %0 = stablehlo.multiply %x, %sb : tensor<2x8x13x13xf32>
  %1 = stablehlo.add %0, %bb : tensor<2x8x13x13xf32>
  %lo = stablehlo.constant dense<0.0> : tensor<2x8x13x13xf32>
  %hi = stablehlo.constant dense<6.0> : tensor<2x8x13x13xf32>
  %2 = stablehlo.maximum %1, %lo : tensor<2x8x13x13xf32>
  %n1 = stablehlo.compare NE, %lo, %lo, FLOAT : (tensor<2x8x13x13xf32>, tensor<2x8x13x13xf32>) -> tensor<2x8x13x13xi1>
  %3 = stablehlo.select %n1, %lo, %2 : tensor<2x8x13x13xi1>, tensor<2x8x13x13xf32>
  %n2 = stablehlo.compare NE, %1, %1, FLOAT : (tensor<2x8x13x13xf32>, tensor<2x8x13x13xf32>) -> tensor<2x8x13x13xi1>
  %4 = stablehlo.select %n2, %1, %3 : tensor<2x8x13x13xi1>, tensor<2x8x13x13xf32>
  %5 = stablehlo.minimum %4, %hi : tensor<2x8x13x13xf32>
  %n3 = stablehlo.compare NE, %hi, %hi, FLOAT : (tensor<2x8x13x13xf32>, tensor<2x8x13x13xf32>) -> tensor<2x8x13x13xi1>
  %6 = stablehlo.select %n3, %hi, %5 : tensor<2x8x13x13xi1>, tensor<2x8x13x13xf32>
  %n4 = stablehlo.compare NE, %4, %4, FLOAT : (tensor<2x8x13x13xf32>, tensor<2x8x13x13xf32>) -> tensor<2x8x13x13xi1>
  %7 = stablehlo.select %n4, %4, %6 : tensor<2x8x13x13xi1>, tensor<2x8x13x13xf32>
  %8 = stablehlo.maximum %sb, %y : tensor<2x8x13x13xf32>
  %9 = stablehlo.minimum %8, %bb : tensor<2x8x13x13xf32>
  %10 = stablehlo.minimum %bb, %9 : tensor<2x8x13x13xf32>
  %11 = stablehlo.maximum %x, %y : tensor<2x8x13x13xf32>
  %12 = stablehlo.minimum %11, %x : tensor<2x8x13x13xf32>
  %13 = stablehlo.maximum %12, %12 : tensor<2x8x13x13xf32>
  return %7, %10, %13 : tensor<2x8x13x13xf32>, tensor<2x8x13x13xf32>, tensor<2x8x13x13xf32>
}`
}

// minMaxTestRow is simdTestRow with signalling NaNs too (the exact
// kernels return them quieted).
func minMaxTestRow(r *rand.Rand, n int) []float32 {
	x := simdTestRow(r, n)
	for i := range x {
		if r.IntN(16) == 0 {
			x[i] = math.Float32frombits(0x7f800001 | uint32(r.IntN(1<<20)) | uint32(r.IntN(2))<<31)
		}
	}
	return x
}

// TestSimdMinMaxMatchesExact checks the maximum and minimum row kernels
// bit for bit against the exact kernels (fmaximum, fminimum through
// float64, as the interpreter runs them) for rows and uniform values on
// either side.
func TestSimdMinMaxMatchesExact(t *testing.T) {
	if !simdRows {
		t.Skip("no vector loops on this machine")
	}
	r := rand.New(rand.NewPCG(35, 36))
	exact := map[string]func(x, y float64) float64{"stablehlo.maximum": fmaximum, "stablehlo.minimum": fminimum}
	for _, n := range []int{1, 3, 7, 8, 9, 15, 16, 17, 31, 49, 64, 169, 511, 512} {
		for name, f := range exact {
			for rep := 0; rep < 30; rep++ {
				x, y := minMaxTestRow(r, n), minMaxTestRow(r, n)
				if rep%3 == 0 {
					copy(y, x) // ties, and zeros against zeros
					for i := range y {
						if r.IntN(2) == 0 && y[i] == 0 {
							y[i] = -y[i]
						}
					}
				}
				for mix := 0; mix < 3; mix++ {
					ux, uy := mix == 1, mix == 2
					xa, ya, xr, yr := x, y, x, y
					if ux {
						xa, xr = x[:1], spreadRow(x[0], n)
					}
					if uy {
						ya, yr = y[:1], spreadRow(y[0], n)
					}
					got, want := make([]float32, n), make([]float32, n)
					if !simdBinary(name, got, xa, ya, ux, uy) {
						t.Fatalf("%s: vector loop not taken", name)
					}
					for k := range want {
						want[k] = float32(f(float64(xr[k]), float64(yr[k])))
					}
					if i := sameBits(got, want); i >= 0 {
						t.Fatalf("%s n=%d ux=%v uy=%v: element %d: %#x, %#x: got %#x, exact %#x", name, n, ux, uy, i,
							math.Float32bits(xr[i]), math.Float32bits(yr[i]), math.Float32bits(got[i]), math.Float32bits(want[i]))
					}
				}
			}
		}
	}
}

// TestSimdNaNPickMatchesScalar checks nanSelect's select(compare(NE, a,
// a), a, y) kernel against the scalar loop, NaN payloads (signalling
// ones too) kept bit for bit.
func TestSimdNaNPickMatchesScalar(t *testing.T) {
	if !simdRows {
		t.Skip("no vector loops on this machine")
	}
	r := rand.New(rand.NewPCG(37, 38))
	for _, n := range []int{1, 5, 8, 13, 16, 40, 169, 512} {
		for rep := 0; rep < 20; rep++ {
			a, y := minMaxTestRow(r, n), minMaxTestRow(r, n)
			got, want := make([]float32, n), make([]float32, n)
			if !isNaNPick(got, a, a, a, "NE") {
				t.Fatal("vector loop not taken")
			}
			cmpSelectRow(got, a, a, a, y, "NE")
			cmpSelect32(want, a, a, a, y, "NE")
			if i := sameBits(got, want); i >= 0 {
				t.Fatalf("n=%d: element %d: a %#x y %#x: got %#x, scalar loop %#x", n, i, math.Float32bits(a[i]), math.Float32bits(y[i]), math.Float32bits(got[i]), math.Float32bits(want[i]))
			}
		}
	}
}

// TestReLU6ChainOnRowKernels checks that hardtanh's chain plans with its
// constant-predicate selects dropped: only maximum, minimum and the
// folded isnan selects of rows remain.
func TestReLU6ChainOnRowKernels(t *testing.T) {
	m := parseFuseModule(t, "relu6")
	ep := compileWith(t, m, true).(*Executable).prog.plans[m.Func("main")].exec
	found := false
	for _, st := range ep.steps {
		g := st.group
		if g == nil {
			continue
		}
		for _, nd := range g.nodes {
			if nd.kind == fkSelect || nd.kind == fkCompare {
				t.Errorf("%v: a %s node (kind %d) left", g, nd.name, nd.kind)
			}
			if nd.name == "stablehlo.minimum" {
				found = true
			}
		}
	}
	if !found {
		t.Fatal("no fused minimum")
	}
}

func parseFuseModule(t *testing.T, name string) *stablehlo.Module {
	t.Helper()
	m, err := stablehlo.ParseModule(name, []byte("module {\n"+fuseModules[name]+"\n}"))
	if err != nil {
		t.Fatal(err)
	}
	return m
}
