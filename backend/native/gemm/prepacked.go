package gemm

// PackedB is a k×n B operand packed once, in the layout the micro-kernels
// read, for products that use the same B many times (a linear layer's
// weight, run after run): SgemmPackedB then packs only A. Per k block (the
// depth KBlock(k) gives), micro-panels of nr columns, each nr values per k
// step; the last panel is padded with zeros.
type PackedB struct {
	ks      *kernelSet
	k, n    int
	kcb, nr int
	data    []float32
}

// PackB packs the k×n matrix b. The result does not refer to b.
func PackB(k, n int, b Matrix) *PackedB { return packB(active, k, n, b) }

func packB(ks *kernelSet, k, n int, b Matrix) *PackedB {
	nr := ks.nr
	pb := &PackedB{ks: ks, k: k, n: n, kcb: KBlock(k), nr: nr}
	bpanels := (n + nr - 1) / nr
	pb.data = make([]float32, k*bpanels*nr)
	for pc := 0; pc < k; pc += pb.kcb {
		kb := min(pb.kcb, k-pc)
		packBBlock(nr, pb.data[pc*bpanels*nr:], b, pc, 0, kb, n)
	}
	return pb
}

// Dims returns the k and n b was packed with.
func (pb *PackedB) Dims() (k, n int) { return pb.k, pb.n }

// Bytes is the memory the packed copy holds.
func (pb *PackedB) Bytes() int { return 4 * len(pb.data) }

// SgemmPackedB computes C = A·B (or C += A·B) for an m×k A and the B of
// pb (k×n) into the row-major m×n c with row stride ldc, on up to threads
// goroutines (0: pool.Threads()).
func SgemmPackedB(m int, a Matrix, pb *PackedB, c []float32, ldc int, accumulate bool, threads int) {
	n, k := pb.n, pb.k
	if m <= 0 || n <= 0 {
		return
	}
	if k <= 0 {
		if !accumulate {
			for i := 0; i < m; i++ {
				clear(c[i*ldc : i*ldc+n])
			}
		}
		return
	}
	run(pb.ks, m, n, k, a, Matrix{}, pb, c, ldc, accumulate, threads)
}
