//go:build !amd64 || purego

package rowsum

const sumSIMDOK = false

// sum512 is the AVX-512 switch of sum_amd64.go (never on here).
var sum512 = false

func sum64add(acc *[64]float32, x *float32, blocks int) { panic("no vector loops") }

func sumRows32x(x *float32, n, rows int, d *float32) { panic("no vector loops") }

func maxRows32x(x *float32, n, rows int, d *float32, nan *bool) { panic("no vector loops") }
