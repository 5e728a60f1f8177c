//go:build !amd64 || purego

package gemm

func kernelSets() []*kernelSet { return []*kernelSet{generic} }

var active = generic

const hasConvGather = false

func gatherConv32(dst, img *float32, cols, taps *int32, kb int, hw *int32) {}

const hasPackAsm = false

func copyB32(dst, src *float32, ldb, kb, np int) {}

func copyB32Part(dst, src *float32, ldb, kb int, mask uint32) {}

func transposeB16(dst, src *float32, ldb, n16 int) {}

func copyA14T(p, src *float32, lda, kb int) {}
