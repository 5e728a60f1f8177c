//go:build !amd64 || purego

package native

// No vector maximum here: pooling uses its Go loops; never called.
var simdPool = false

func maxExact8(d, a, b *float32, n int) bool { panic("no vector loops") }
