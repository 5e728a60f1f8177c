//go:build !amd64 || purego

package native

// No wide-row kernels here (dwWideOK is false): never called.
const dwWideOK = false

func dwWide1(p *dwWideArgs) { panic("no vector loops") }

func dwWide2(p *dwWideArgs) { panic("no vector loops") }

func dwWide1x4(p *dwWideArgs) { panic("no vector loops") }

func dwWide2x4(p *dwWideArgs) { panic("no vector loops") }
