package gemm

import "fmt"

// StripA is an m×k A operand packed for products whose B is read in
// place, row-major (a pointwise convolution's image, [channels, positions]):
// strips of 16 rows, the last of 8 where m is not a multiple of 16, each
// k-major (the strip's elements of one k step together). Its products
// run on the strip kernels (gen/strip.go): a 16×16 tile per call of the
// inner loop, the whole sum in registers, B never packed.
type StripA struct {
	m, k int
	data []float32
	pool *buf // data's pooled buffer (NewStripA's, until Release)
}

// StripRows is the height of a strip (the last may be StripRows/2).
const StripRows = 16

// StripsOK reports whether an m×k A can be packed as a StripA and
// multiplied by Mul on this CPU: the strip kernels need AVX-512, m a
// multiple of 8 and k of 8. MulTaps takes any k (TapStripsOK).
func StripsOK(m, k int) bool {
	return TapStripsOK(m, k) && k%8 == 0
}

// StripsPreferred reports whether the strip kernels run faster than the
// packed GEMM on this CPU: callers choosing between the two take the
// strips only then (StripsOK says whether they run at all). The strips
// broadcast A inside each FMA, one load per multiply-add, which Zen 4
// sustains and Ice Lake does not (there the models' convolutions on the
// packed GEMM instead: resnet18 31 → 25 ms, resnet50 26 → 21.5, the
// MobileNetV2-style model 9.9 → 8.8), so they are preferred where the
// embedded-broadcast kernels are.
func StripsPreferred() bool { return hasStrips && EmbeddedBroadcasts() }

// TapStripsOK reports whether an m×k A can be packed as a StripA for
// MulTaps on this CPU: m a multiple of 8.
func TapStripsOK(m, k int) bool {
	return hasStrips && m > 0 && k > 0 && m%8 == 0
}

// NewStripA packs the m×k matrix a (TapStripsOK(m, k) must hold) into a
// buffer from the package's pool, which Release gives back.
func NewStripA(m, k int, a Matrix) *StripA {
	if !TapStripsOK(m, k) {
		panic(fmt.Sprintf("gemm: NewStripA(%d, %d): not a shape of the strip kernels", m, k))
	}
	b := getBuf(m * k)
	s := &StripA{m: m, k: k, data: b.s[:m*k], pool: b}
	s.pack(a)
	return s
}

// PackStripA is NewStripA into memory of its own (kept for as long as
// the caller holds it: a frozen weight's packed copy).
func PackStripA(m, k int, a Matrix) *StripA {
	if !TapStripsOK(m, k) {
		panic(fmt.Sprintf("gemm: PackStripA(%d, %d): not a shape of the strip kernels", m, k))
	}
	s := &StripA{m: m, k: k, data: make([]float32, m*k)}
	s.pack(a)
	return s
}

func (s *StripA) pack(a Matrix) {
	for r0 := 0; r0 < s.m; r0 += StripRows {
		h := min(StripRows, s.m-r0)
		p := s.data[r0*s.k : (r0+h)*s.k]
		q0 := 0
		if h == StripRows && a.ColStride == 1 && hasPackAsm {
			// 16 k steps at a time transposed in registers (a Go loop
			// writing one float a step cost more than a 16-column product
			// over the same weights)
			if n16 := s.k / 16; n16 > 0 {
				_ = a.Data[a.Off+(r0+h-1)*a.RowStride+16*n16-1]
				transposeS16(&p[0], &a.Data[a.Off+r0*a.RowStride], a.RowStride, n16)
				q0 = 16 * n16
			}
		}
		for i := 0; i < h; i++ {
			src := a.Off + (r0+i)*a.RowStride
			for q := q0; q < s.k; q++ {
				p[q*h+i] = a.Data[src+q*a.ColStride]
			}
		}
	}
}

// Release gives a NewStripA's buffer back to the pool; s must not be
// used after.
func (s *StripA) Release() {
	if s.pool != nil {
		putBuf(s.pool)
		s.pool, s.data = nil, nil
	}
}

// Rows and Depth are m and k.
func (s *StripA) Rows() int  { return s.m }
func (s *StripA) Depth() int { return s.k }

// Strips is the number of strips, ⌈m/16⌉.
func (s *StripA) Strips() int { return (s.m + StripRows - 1) / StripRows }

// Bytes is the memory the packed copy holds.
func (s *StripA) Bytes() int { return 4 * len(s.data) }

// Mul writes rows [16·s0, min(16·s1, m)) × columns [0, n) of C = A·B:
// B the k×n matrix b read in place (rows ldb floats apart), C rows ldc
// floats apart from c[0] (row 0 of A's first row); nothing where k is not
// a multiple of 8 (StripsOK). Sums run over k in
// order with fused multiply-adds, as the packed kernels' (the same bits
// where those take k in one block).
func (s *StripA) Mul(s0, s1 int, b []float32, ldb int, c []float32, ldc int, n int) {
	if s0 < 0 || s1 > s.Strips() || s0 >= s1 || n <= 0 || s.k%8 != 0 {
		return
	}
	r0, r1 := s0*StripRows, min(s1*StripRows, s.m)
	_ = b[(s.k-1)*ldb+n-1]
	_ = c[(r1-1)*ldc+n-1]
	vecs, tail := n/16, n%16
	full := (r1 - r0) / StripRows // strips of 16 rows
	for _, v := range [2]struct {
		j, vecs int
		mask    uint16
	}{{0, vecs, 0xffff}, {vecs * 16, 1, uint16(1)<<tail - 1}} {
		if v.vecs == 0 || v.mask == 0 {
			continue
		}
		if full > 0 {
			strip16x16(s.k, &s.data[r0*s.k], &b[v.j], ldb, &c[r0*ldc+v.j], ldc, full, v.vecs, v.mask)
		}
		if r := r0 + full*StripRows; r < r1 { // a last strip of 8
			strip8x16(s.k, &s.data[r*s.k], &b[v.j], ldb, &c[r*ldc+v.j], ldc, 1, v.vecs, v.mask)
		}
	}
}
