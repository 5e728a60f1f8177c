//go:build !amd64 || purego

package native

const gemvSIMDOK, gemvPackedOK = false, false

// gemv512 is the AVX-512 switch of fast_gemv_amd64.go (never on here).
var gemv512 = false

func gemvRows4(x, w *float32, k, ldw int, y *float32, rows int, mask int) { panic("no vector loops") }

func gemvBlocks16(x, w *float32, k int, y *float32, blocks int) { panic("no vector loops") }
