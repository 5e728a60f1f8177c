//go:build !amd64 || purego

package gemm

func kernelSets() []*kernelSet { return []*kernelSet{generic} }

var active = generic

const hasConvGather, convGather32, convGather16 = false, false, false

func gatherConv32(dst, img *float32, cols, taps *int32, kb int, hw *int32) {}

func gatherConv16(dst, img *float32, cols, taps *int32, kb int, hw *int32, contig int, masks *int32, period, ahead int) {
}

const hasPackAsm = false

// hasPack16 is the AVX2 packers' switch of kernel_amd64.go (never on here).
var hasPack16 = false

func copyB16(dst, src *float32, ldb, kb, np int) {}

func copyB16Part(dst, src *float32, ldb, kb, nn int) {}

func transposeB8(dst, src *float32, ldb, n8 int) {}

func copyA6T(p, src *float32, lda, kb int) {}

func copyA6T4(p, src *float32, lda, kb int) {}

func copyB32(dst, src *float32, ldb, kb, np int) {}

func copyB32Part(dst, src *float32, ldb, kb int, mask uint32) {}

func transposeB16(dst, src *float32, ldb, n16 int) {}

func copyA14T(p, src *float32, lda, kb int) {}

const hasStrips = false

func strip16x16(k int, a, b *float32, ldb int, c *float32, ldc int, strips, vecs int, mask uint16) {}

func strip8x16(k int, a, b *float32, ldb int, c *float32, ldc int, strips, vecs int, mask uint16) {}
func transposeS16(dst, src *float32, ldb, n16 int)                                                {}

func taps16x16(c int, a, x *float32, hw int, offs *int64, masks *uint16, taps int, out *float32, ldc int, vecs int, mstride int) {
}

func taps8x16(c int, a, x *float32, hw int, offs *int64, masks *uint16, taps int, out *float32, ldc int, vecs int, mstride int) {
}

func tapsOne16x16(c int, a, x *float32, hw int, offs *int64, masks *uint16, taps int, out *float32, ldc int, vecs int, mstride int) {
}

func tapsOne8x16(c int, a, x *float32, hw int, offs *int64, masks *uint16, taps int, out *float32, ldc int, vecs int, mstride int) {
}
