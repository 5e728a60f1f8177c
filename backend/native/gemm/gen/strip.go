// The strip kernels (AVX-512): C = A·B with B read in place, row-major,
// 16 columns at a time, and A packed in strips of r rows (16, or 8 for a
// last strip), k-major within a strip. A tile is r rows × 16 columns in r
// accumulators; each k step loads one vector of B (a row of it, 16
// columns: no packing, B's rows ldb floats apart) and broadcasts the
// strip's r elements of A inside r fused multiply-adds. Eight k steps'
// B vectors are loaded together into Z0-Z7.
//
// Against the 14×32 kernels over packed B, a tile here needs no B panel
// packed per chunk of columns, no C prefetch and no k blocks: the whole
// sum stays in registers (k a multiple of 8, any depth). One core,
// BenchmarkStrips (m×k×n, chunks of 256 columns): 64×16×4096 107 → 78 µs,
// 16×32×12544 172 → 120, 144×24×3136 255 → 194, 256×1024×196 1.33 →
// 0.96 ms.

package main

import "fmt"

// stripKernel writes strip<r>x16(k int, a, b *float32, ldb int, c *float32,
// ldc int, strips, vecs int, mask uint16): for each of strips strips of r
// rows (a advancing k·r floats per strip, c r rows), for each of vecs
// vectors of 16 columns (b and c advancing 16 floats), the tile's sum
// over k steps, stored to C. mask selects the columns of each vector
// loaded from B and stored to C (a last, partial vector: masked lanes
// neither fault nor are written).
func stripKernel(w func(string, ...any), r int) {
	name := fmt.Sprintf("strip%dx16", r)
	w("// func %s(k int, a, b *float32, ldb int, c *float32, ldc int, strips, vecs int, mask uint16)", name)
	w("TEXT ·%s(SB), NOSPLIT, $0-66", name)
	w("\tMOVQ k+0(FP), R12")
	w("\tSHRQ $3, R12") // k steps / 8
	w("\tMOVQ a+8(FP), AX")
	w("\tMOVQ b+16(FP), R14")
	w("\tMOVQ ldb+24(FP), DX")
	w("\tSHLQ $2, DX")
	w("\tMOVQ c+32(FP), DI")
	w("\tMOVQ ldc+40(FP), SI")
	w("\tSHLQ $2, SI")
	w("\tMOVQ strips+48(FP), R10")
	w("\tMOVQ vecs+56(FP), R13")
	w("\tMOVWLZX mask+64(FP), R15")
	w("\tKMOVW R15, K1")
	w("\tTESTQ R12, R12")
	w("\tJEQ %s_done", name)
	w("\tTESTQ R13, R13")
	w("\tJEQ %s_done", name)
	w("\tTESTQ R10, R10")
	w("\tJEQ %s_done", name)
	w("%s_strip:", name)
	// per strip: B from its first column, C from the strip's first row
	w("\tMOVQ R14, BX")
	w("\tMOVQ DI, R9")
	w("\tMOVQ R13, R11")
	w("\tMOVQ AX, R15")
	w("%s_vec:", name)
	w("\tMOVQ R15, AX")
	stripZero(w, r)
	w("\tMOVQ BX, R8")
	w("\tMOVQ R12, CX")
	w("%s_steps:", name)
	stripSteps(w, r, 8)
	w("\tDECQ CX")
	w("\tJNE %s_steps", name)
	w("\tMOVQ R9, CX")
	stripStore(w, r, "K1")
	w("\tADDQ $64, BX")
	w("\tADDQ $64, R9")
	w("\tDECQ R11")
	w("\tJNE %s_vec", name)
	// next strip: AX is past this strip's k·r floats; C r rows down
	w("\tLEAQ (DI)(SI*8), DI")
	if r == 16 {
		w("\tLEAQ (DI)(SI*8), DI")
	}
	w("\tDECQ R10")
	w("\tJNE %s_strip", name)
	w("%s_done:", name)
	w("\tVZEROUPPER")
	w("\tRET")
	w("")
}

// tapsKernel writes taps<r>x16(c int, a, x *float32, hw int, offs *int64,
// masks *uint16, taps int, out *float32, ldc int, vecs int, mstride int):
// a strip kernel whose B is a stride-1 convolution's image, read in place
// (StripA.MulTaps): k step t·c + ch of position q reads x[ch·hw + q] at
// byte offset offs[t], its lanes masked by the vector's mask for tap t
// (the positions whose tap falls inside the image; the others read
// nothing and count zero). For each of vecs vectors of 16 positions (x
// and out advancing 16 floats, masks mstride bytes), one r-row tile over
// every tap and channel (c a multiple of 8), stored under the vector's
// last mask, masks[taps].
func tapsKernel(w func(string, ...any), r int) { tapsKernelChunk(w, r, 8) }

// tapsOneKernel writes tapsOne<r>x16, tapsKernel's loop one channel at a
// time: for any number of channels (a network's stem has 3).
func tapsOneKernel(w func(string, ...any), r int) { tapsKernelChunk(w, r, 1) }

func tapsKernelChunk(w func(string, ...any), r, chunk int) {
	name := fmt.Sprintf("taps%dx16", r)
	if chunk == 1 {
		name = fmt.Sprintf("tapsOne%dx16", r)
	}
	w("// func %s(c int, a, x *float32, hw int, offs *int64, masks *uint16, taps int, out *float32, ldc int, vecs int, mstride int)", name)
	w("TEXT ·%s(SB), NOSPLIT, $0-88", name)
	w("\tMOVQ c+0(FP), R14")
	if chunk == 8 {
		w("\tSHRQ $3, R14") // channel chunks of 8
	}
	w("\tMOVQ x+16(FP), R9")
	w("\tMOVQ hw+24(FP), DX")
	w("\tSHLQ $2, DX")
	w("\tMOVQ out+56(FP), DI")
	w("\tMOVQ ldc+64(FP), SI")
	w("\tSHLQ $2, SI")
	w("\tMOVQ masks+40(FP), R12")
	w("\tMOVQ vecs+72(FP), R10")
	w("\tTESTQ R14, R14")
	w("\tJEQ %s_done", name)
	w("\tTESTQ R10, R10")
	w("\tJEQ %s_done", name)
	w("\tCMPQ taps+48(FP), $0")
	w("\tJEQ %s_done", name)
	w("%s_vec:", name)
	stripZero(w, r)
	w("\tMOVQ a+8(FP), AX")
	w("\tMOVQ offs+32(FP), R11")
	w("\tMOVQ taps+48(FP), R15")
	w("\tMOVQ R12, R13")
	w("%s_tap:", name)
	w("\tKMOVW (R13), K1")
	w("\tMOVQ (R11), R8")
	w("\tADDQ R9, R8")
	w("\tMOVQ R14, CX")
	w("%s_chunk:", name)
	stripSteps(w, r, chunk)
	w("\tDECQ CX")
	w("\tJNE %s_chunk", name)
	w("\tADDQ $8, R11")
	w("\tADDQ $2, R13")
	w("\tDECQ R15")
	w("\tJNE %s_tap", name)
	w("\tKMOVW (R13), K2") // the store mask: masks[taps]
	w("\tMOVQ DI, CX")
	stripStore(w, r, "K2")
	w("\tADDQ $64, DI")
	w("\tADDQ $64, R9")
	w("\tADDQ mstride+80(FP), R12")
	w("\tDECQ R10")
	w("\tJNE %s_vec", name)
	w("%s_done:", name)
	w("\tVZEROUPPER")
	w("\tRET")
	w("")
}

// stripZero clears a strip tile's r accumulators, Z8 on.
func stripZero(w func(string, ...any), r int) {
	for i := 0; i < r; i++ {
		w("\tVPXORD Z%d, Z%d, Z%d", 8+i, 8+i, 8+i)
	}
}

// stripSteps writes steps k steps of a strip tile: the steps' B vectors
// loaded under K1 from R8 on, rows DX bytes apart, into Z0 on, then r
// fused multiply-adds per step with the strip's elements broadcast from
// AX, which then moves past them.
func stripSteps(w func(string, ...any), r, steps int) {
	for s := 0; s < steps; s++ {
		w("\tVMOVUPS.Z (R8), K1, Z%d", s)
		w("\tADDQ DX, R8")
	}
	for s := 0; s < steps; s++ {
		for i := 0; i < r; i++ {
			w("\tVFMADD231PS.BCST %d(AX), Z%d, Z%d", 4*(s*r+i), s, 8+i)
		}
	}
	w("\tADDQ $%d, AX", 4*steps*r)
}

// stripStore stores a strip tile's r accumulators under mask to r rows of
// C from CX on, SI bytes apart.
func stripStore(w func(string, ...any), r int, mask string) {
	for i := 0; i < r; i++ {
		w("\tVMOVUPS Z%d, %s, (CX)", 8+i, mask)
		if i < r-1 {
			w("\tADDQ SI, CX")
		}
	}
}
