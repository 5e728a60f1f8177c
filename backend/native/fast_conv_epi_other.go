//go:build !amd64 || purego

package native

// No vector epilogue here (simdRows is false): never called.
func affineRows32(p *epiArgs) { panic("no vector loops") }
