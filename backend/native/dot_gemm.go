package native

// Batched matrix products: the inner kernels of dot_general and
// convolution. They are package variables so that a faster (SIMD, tiled,
// threaded) implementation can replace them without touching the op
// kernels. Every one computes, for each batch b,
//
//	c[b][i][j] = sum over k of a[b][i][k] * bm[b][k][j]
//
// with a of shape [batch, m, k], bm of shape [batch, k, n] and c of shape
// [batch, m, n], all row-major and contiguous; c is overwritten.

var (
	gemmF64  = gemmGeneric[float64]
	gemmI64  = gemmGeneric[int64]
	gemmC128 = gemmGeneric[complex128]
)

type gemmElem interface {
	~float64 | ~int64 | ~complex128
}

// gemmGeneric is the reference batched product: for each output row it
// accumulates rank-1 updates over k, so the innermost loop runs over
// contiguous rows of bm and c, and each sum is formed in ascending k.
func gemmGeneric[T gemmElem](batch, m, k, n int, a, bm, c []T) {
	for b := 0; b < batch; b++ {
		ab := a[b*m*k : (b+1)*m*k]
		bb := bm[b*k*n : (b+1)*k*n]
		cb := c[b*m*n : (b+1)*m*n]
		for i := 0; i < m; i++ {
			crow := cb[i*n : (i+1)*n]
			for j := range crow {
				crow[j] = 0
			}
			arow := ab[i*k : (i+1)*k]
			for p, av := range arow {
				brow := bb[p*n : (p+1)*n]
				for j, bv := range brow {
					crow[j] += av * bv
				}
			}
		}
	}
}
