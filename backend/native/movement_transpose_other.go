//go:build !amd64 || purego

package native

// No vector transpose here: copyPlan.tiled copies element by element.
var hasTranspose8 = false

func transpose8x8F32(dst *byte, ldd int, src *byte, lds int) { panic("no vector transpose") }
