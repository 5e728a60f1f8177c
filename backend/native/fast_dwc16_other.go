//go:build !amd64 || purego

package native

// No channel-vector kernel here (dwc16OK is false): never called.
const dwc16OK = false

// dwc512 is the AVX-512 switch of fast_dwc16_amd64.go (never on here).
var dwc512 = false

func dwc16(p *dwcArgs) { panic("no vector loops") }

func transpose16(dst *float32, dstStride int, src *float32, srcStride int, rows, cols int, dst2 *float32) {
	panic("no vector loops")
}
