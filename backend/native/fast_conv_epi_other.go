//go:build !amd64 || purego

package native

// No vector epilogue here (simdRows is false): never called.
func affineRows32(p *epiArgs) { panic("no vector loops") }

func affineRows16(p *epiArgs) { panic("no vector loops") }

var affine512 = false

func affineRows(p *epiArgs) { affineRows32(p) }
