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
	for i := 0; i < r; i++ {
		w("\tVPXORD Z%d, Z%d, Z%d", 8+i, 8+i, 8+i)
	}
	w("\tMOVQ BX, R8")
	w("\tMOVQ R12, CX")
	w("%s_steps:", name)
	for s := 0; s < 8; s++ {
		w("\tVMOVUPS.Z (R8), K1, Z%d", s)
		w("\tADDQ DX, R8")
	}
	for s := 0; s < 8; s++ {
		for i := 0; i < r; i++ {
			w("\tVFMADD231PS.BCST %d(AX), Z%d, Z%d", 4*(s*r+i), s, 8+i)
		}
	}
	w("\tADDQ $%d, AX", 4*8*r)
	w("\tDECQ CX")
	w("\tJNE %s_steps", name)
	w("\tMOVQ R9, CX")
	for i := 0; i < r; i++ {
		w("\tVMOVUPS Z%d, K1, (CX)", 8+i)
		if i < r-1 {
			w("\tADDQ SI, CX")
		}
	}
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
