package gemm

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// reference computes C (+)= A·B in float64.
func reference(m, n, k int, a, b Matrix, c []float32, ldc int, acc bool) []float64 {
	out := make([]float64, m*ldc)
	for i := 0; i < m; i++ {
		for j := 0; j < n; j++ {
			var s float64
			for p := 0; p < k; p++ {
				s += float64(a.Data[a.Off+i*a.RowStride+p*a.ColStride]) * float64(b.Data[b.Off+p*b.RowStride+j*b.ColStride])
			}
			if acc {
				s += float64(c[i*ldc+j])
			}
			out[i*ldc+j] = s
		}
	}
	return out
}

func randMat(r *rand.Rand, n int) []float32 {
	s := make([]float32, n)
	for i := range s {
		s[i] = float32(r.NormFloat64())
	}
	return s
}

// operand returns a rows×cols view in the given layout ('N' row-major,
// 'T' the transpose of a row-major cols×rows), offset by a few elements.
func operand(r *rand.Rand, rows, cols int, layout byte) Matrix {
	const off = 3
	data := randMat(r, rows*cols+off)
	if layout == 'T' {
		return Matrix{Data: data, Off: off, RowStride: 1, ColStride: rows}
	}
	return Matrix{Data: data, Off: off, RowStride: cols, ColStride: 1}
}

func checkSgemm(t *testing.T, ks *kernelSet, m, n, k int, layout string, acc bool, threads int, r *rand.Rand) {
	t.Helper()
	a := operand(r, m, k, layout[0])
	b := operand(r, k, n, layout[1])
	ldc := n + 5 // C rows padded: the columns past n must stay untouched
	c := randMat(r, m*ldc)
	want := reference(m, n, k, a, b, c, ldc, acc)
	pad := append([]float32(nil), c...)
	sgemm(ks, m, n, k, a, b, c, ldc, acc, threads, nil)
	for i := 0; i < m; i++ {
		for j := 0; j < ldc; j++ {
			x := i*ldc + j
			if j >= n {
				if c[x] != pad[x] {
					t.Fatalf("%s %dx%dx%d %s: padding c[%d][%d] changed", ks.name, m, n, k, layout, i, j)
				}
				continue
			}
			tol := 1e-4 * math.Sqrt(float64(k)+1) * (1 + math.Abs(want[x]))
			if math.Abs(float64(c[x])-want[x]) > tol {
				t.Fatalf("%s %dx%dx%d %s acc=%v threads=%d: c[%d][%d] = %v, want %v", ks.name, m, n, k, layout, acc, threads, i, j, c[x], want[x])
			}
		}
	}
}

func TestSgemmAgainstFloat64(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	shapes := [][3]int{{1, 1, 1}, {3, 5, 7}, {14, 32, 1}, {14, 32, 384}, {15, 33, 385}, {6, 16, 40},
		{100, 70, 50}, {29, 600, 481}, {169, 1025, 17}, {64, 64, 800}, {300, 40, 900},
		// rows 4 KB apart read in place (6-row kernels); a wide B packed whole
		{30, 100, 1024}, {258, 530, 200}}
	if testing.Short() {
		shapes = shapes[:8]
	}
	// a row-major A is read in place (runDirectAB) where the CPU has the
	// direct kernels; directA off packs it, as every A was before
	defer func(old bool) { directA = old }(directA)
	for _, direct := range []bool{true, false} {
		directA = direct
		for _, ks := range kernelSets() {
			for _, s := range shapes {
				for _, layout := range []string{"NN", "TN", "NT", "TT"} {
					for _, acc := range []bool{false, true} {
						checkSgemm(t, ks, s[0], s[1], s[2], layout, acc, 1+r.IntN(3), r)
					}
				}
			}
		}
	}
}

func TestKernelSetsAgree(t *testing.T) {
	// a product large enough for several k blocks, A blocks and work items
	r := rand.New(rand.NewPCG(5, 6))
	m, n, k := 4200, 600, 800
	if testing.Short() {
		m = 300
	}
	a, b := RowMajor(randMat(r, m*k), k), RowMajor(randMat(r, k*n), n)
	var first []float32
	for _, ks := range kernelSets() {
		c := make([]float32, m*n)
		sgemm(ks, m, n, k, a, b, c, n, false, 2, nil)
		if first == nil {
			first = c
			checkSgemm(t, ks, 33, 700, 900, "NN", false, 2, r)
			continue
		}
		for i := range c {
			if d := math.Abs(float64(c[i] - first[i])); d > 1e-3*(1+math.Abs(float64(first[i]))) {
				t.Fatalf("%s vs %s: c[%d] = %v vs %v", ks.name, kernelSets()[0].name, i, c[i], first[i])
			}
		}
	}
}

func TestSeveralABlocks(t *testing.T) {
	// small A blocks: several blocks, double-buffered, with every layout
	defer func(old int) { packAElems = old }(packAElems)
	packAElems = 40 * 300
	r := rand.New(rand.NewPCG(7, 8))
	for _, ks := range kernelSets() {
		for _, s := range [][3]int{{200, 700, 300}, {150, 100, 290}} {
			for _, layout := range []string{"NN", "TT"} {
				checkSgemm(t, ks, s[0], s[1], s[2], layout, s[0] == 150, 3, r)
			}
		}
	}
}

func TestDegenerate(t *testing.T) {
	c := []float32{7, 7}
	Sgemm(1, 2, 0, RowMajor(nil, 0), RowMajor(nil, 2), c, 2, false, 0)
	if c[0] != 0 || c[1] != 0 {
		t.Fatalf("k=0 without accumulate: %v, want zeros", c)
	}
	c = []float32{7, 7}
	Sgemm(1, 2, 0, RowMajor(nil, 0), RowMajor(nil, 2), c, 2, true, 0)
	if c[0] != 7 || c[1] != 7 {
		t.Fatalf("k=0 with accumulate: %v, want unchanged", c)
	}
	Sgemm(0, 2, 3, RowMajor(nil, 3), RowMajor(make([]float32, 6), 2), nil, 2, false, 0)
}

func BenchmarkSgemm(b *testing.B) {
	for _, ks := range kernelSets() {
		for _, n := range []int{256, 1024, 2048} {
			for _, threads := range []int{1, 2} {
				if ks == generic && n > 256 {
					continue
				}
				b.Run(fmt.Sprintf("%s/%d/threads=%d", ks.name, n, threads), func(b *testing.B) {
					r := rand.New(rand.NewPCG(1, 2))
					a, bb, c := randMat(r, n*n), randMat(r, n*n), make([]float32, n*n)
					flops := 2 * float64(n) * float64(n) * float64(n)
					b.ResetTimer()
					cpu0 := processCPU()
					for i := 0; i < b.N; i++ {
						sgemm(ks, n, n, n, RowMajor(a, n), RowMajor(bb, n), c, n, false, threads, nil)
					}
					reportFlops(b, flops*float64(b.N), processCPU()-cpu0, threads)
				})
			}
		}
	}
}

// BenchmarkSgemmNT multiplies by a transposed B, as a linear layer does
// (x·Wᵀ with W stored out×in): a batch of 64 rows and a square product.
func BenchmarkSgemmNT(b *testing.B) {
	ks := active
	for _, s := range [][3]int{{64, 1024, 1024}, {1024, 1024, 1024}} {
		m, n, k := s[0], s[1], s[2]
		b.Run(fmt.Sprintf("%s/%dx%dx%d", ks.name, m, n, k), func(b *testing.B) {
			r := rand.New(rand.NewPCG(1, 2))
			a, w, c := randMat(r, m*k), randMat(r, n*k), make([]float32, m*n)
			flops := 2 * float64(m) * float64(n) * float64(k)
			cpu0 := processCPU()
			for i := 0; i < b.N; i++ {
				sgemm(ks, m, n, k, RowMajor(a, k), RowMajor(w, k).Transposed(), c, n, false, 1, nil)
			}
			reportFlops(b, flops*float64(b.N), processCPU()-cpu0, 1)
		})
	}
}

// BenchmarkSgemmTN multiplies a transposed A (a weight gradient's xᵀ·dy).
func BenchmarkSgemmTN(b *testing.B) {
	ks := active
	const n = 1024
	b.Run(fmt.Sprintf("%s/%d", ks.name, n), func(b *testing.B) {
		r := rand.New(rand.NewPCG(1, 2))
		a, bb, c := randMat(r, n*n), randMat(r, n*n), make([]float32, n*n)
		cpu0 := processCPU()
		for i := 0; i < b.N; i++ {
			sgemm(ks, n, n, n, RowMajor(a, n).Transposed(), RowMajor(bb, n), c, n, false, 1, nil)
		}
		reportFlops(b, 2*float64(n*n*n)*float64(b.N), processCPU()-cpu0, 1)
	})
}
