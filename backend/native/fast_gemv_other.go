//go:build !amd64 || purego

package native

const gemvSIMDOK = false

func gemvRows4(x, w *float32, k, ldw int, y *float32, rows int, mask int) { panic("no vector loops") }

func gemvBlocks16(x, w *float32, k int, y *float32, blocks int) { panic("no vector loops") }
