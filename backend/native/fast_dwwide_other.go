//go:build !amd64 || purego

package native

// No wide-row kernels here (dwWideOK is false): never called.
const dwWideOK = false

func dwWide1(p *dwWideArgs) { panic("no vector loops") }

func dwWide2(p *dwWideArgs) { panic("no vector loops") }

func dwWide1x4(p *dwWideArgs) { panic("no vector loops") }

func dwWide2x4(p *dwWideArgs) { panic("no vector loops") }

func dwSweep3s1(p *dwSweepArgs) { panic("no vector loops") }

func dwSweep3s2(p *dwSweepArgs) { panic("no vector loops") }

func dwSweep5s1(p *dwSweepArgs) { panic("no vector loops") }

func dwSweep5s2(p *dwSweepArgs) { panic("no vector loops") }
