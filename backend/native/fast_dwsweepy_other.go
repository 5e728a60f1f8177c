//go:build !amd64 || purego

package native

// No AVX2 sweep kernels here (dwSweepYOK is false): never called.
const dwSweepYOK = false

func dwSweepY3s1(p *dwSweepYArgs) { panic("no vector loops") }

func dwSweepY3s2(p *dwSweepYArgs) { panic("no vector loops") }

func dwFlatY3(p *dwFlatArgs) { panic("no vector loops") }
