//go:build amd64 && !purego

package gemm

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestPack16MatchesGo packs B blocks of 16-column panels (row-major B with
// full and partial panels, transposed B) and 6-row A panels of a
// transposed A (one, and four at once) and of a row-major A with the AVX2 packers and with the Go loops, into
// destinations prefilled with NaN, and checks the two bit for bit: every
// element written, the padding zero. The sources sit at the end of their
// buffers, so a packer reading past a row's last column would fault.
func TestPack16MatchesGo(t *testing.T) {
	if !hasPack16 {
		t.Skip("no AVX2 packers on this CPU")
	}
	defer func() { hasPack16 = true }()
	r := rand.New(rand.NewPCG(21, 22))
	pack := func(asm bool, f func([]float32), n int) []float32 {
		hasPack16 = asm
		dst := make([]float32, n)
		for i := range dst {
			dst[i] = float32(math.NaN())
		}
		f(dst)
		return dst
	}
	same := func(what string, a, b []float32) {
		t.Helper()
		if !slices.EqualFunc(a, b, func(x, y float32) bool { return math.Float32bits(x) == math.Float32bits(y) }) {
			t.Fatalf("%s: the AVX2 packer and the Go loop differ", what)
		}
	}
	for it := 0; it < 200; it++ {
		kb, nb := 1+r.IntN(40), 1+r.IntN(70)
		ld := nb + r.IntN(5)
		// B row-major: the block ends where the buffer does
		data := randMat(r, (kb-1)*ld+nb)
		b := RowMajor(data, ld)
		n := kb * roundUp(nb, 16)
		f := func(dst []float32) { packBBlock(16, dst, b, 0, 0, kb, nb) }
		same("row-major B", pack(true, f, n), pack(false, f, n))
		// B transposed: column j of the block is a run of kb floats
		ldt := kb + r.IntN(5)
		bt := RowMajor(randMat(r, (nb-1)*ldt+kb), ldt).Transposed()
		f = func(dst []float32) { packBBlock(16, dst, bt, 0, 0, kb, nb) }
		same("transposed B", pack(true, f, n), pack(false, f, n))
		// A transposed: k step q is a run of the panel's rows
		mm := 6
		lda := mm + r.IntN(5)
		at := RowMajor(randMat(r, (kb-1)*lda+mm), lda).Transposed()
		f = func(dst []float32) { packAPanel(avx2, dst, at, 0, 0, mm, kb) }
		same("transposed A", pack(true, f, 6*kb), pack(false, f, 6*kb))
		// four panels of a transposed A at once, against four by the Go loop
		lda4 := 24 + r.IntN(9)
		at4 := RowMajor(randMat(r, (kb-1)*lda4+24), lda4).Transposed()
		four := pack(true, func(dst []float32) {
			if !packAPanels4(avx2, dst, at4, 0, 0, kb) {
				t.Fatal("packAPanels4 declined four full panels")
			}
		}, 24*kb)
		one := pack(false, func(dst []float32) {
			for i := 0; i < 4; i++ {
				packAPanel(avx2, dst[6*kb*i:6*kb*(i+1)], at4, 6*i, 0, 6, kb)
			}
		}, 24*kb)
		same("four transposed A panels", four, one)
		// a row-major A panel: 8 k steps at a time transposed, the rest in Go
		lda6 := kb + r.IntN(9)
		a6 := randMat(r, 5*lda6+kb)
		fast := pack(true, func(dst []float32) { packA6Fast(dst, a6, lda6, kb) }, 6*kb+8)
		slow := pack(false, func(dst []float32) { packA6(dst, a6, lda6, kb) }, 6*kb+8)
		same("row-major A panel", fast, slow)
	}
}
