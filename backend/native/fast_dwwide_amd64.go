//go:build amd64 && !purego

package native

// dwWide1 and dwWide2 are the wide-row depthwise kernels for strides 1
// and 2 (fast_dwwide_amd64.s).
//
//go:noescape
func dwWide1(p *dwWideArgs)

//go:noescape
func dwWide2(p *dwWideArgs)

// dwWide1x4 and dwWide2x4 compute blocks of four output rows.
//
//go:noescape
func dwWide1x4(p *dwWideArgs)

//go:noescape
func dwWide2x4(p *dwWideArgs)

// dwWideOK: the kernels need AVX-512 (dwc512).
var dwWideOK = dwc512

// The sweep kernels (fast_dwsweep_amd64.s, written by internal/dwgen):
// four output rows of a K×K window at stride S, each input row loaded
// once per tap column.
//
//go:noescape
func dwSweep3s1(p *dwSweepArgs)

//go:noescape
func dwSweep3s2(p *dwSweepArgs)

//go:noescape
func dwSweep5s1(p *dwSweepArgs)

//go:noescape
func dwSweep5s2(p *dwSweepArgs)
