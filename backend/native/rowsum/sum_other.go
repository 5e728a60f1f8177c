//go:build !amd64 || purego

package rowsum

const sumSIMDOK = false

func sum64add(acc *[64]float32, x *float32, blocks int) { panic("no vector loops") }

func sumRows32x(x *float32, n, rows int, d *float32) { panic("no vector loops") }

func maxRows32x(x *float32, n, rows int, d *float32, nan *bool) { panic("no vector loops") }
