//go:build !amd64 || purego

package native

// No vector row kernel here (dwSIMDOK is false): never called.
func dwRows(p *dwArgs) { panic("no vector loops") }

const dwSIMDOK = false

func evens8(d, s *float32, n int) { panic("no vector loops") }
