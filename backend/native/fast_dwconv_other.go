//go:build !amd64 || purego

package native

// No vector row kernel here (dwSIMDOK is false): never called.
func dwRows(p *dwArgs) { panic("no vector loops") }

const dwSIMDOK = false

func evensRows(d, s *float32, n, rows, dStride, sStride int) { panic("no vector loops") }

const dw512OK = false

func dwRows512(p *dwArgs) { panic("no vector loops") }
