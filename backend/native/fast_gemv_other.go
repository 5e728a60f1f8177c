//go:build !amd64 || purego

package native

const gemvSIMDOK = false

func gemvRows4(x, w *float32, k, ldw int, y *float32, rows int, mask int) { panic("no vector loops") }
