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

// dwWideOK: the kernels need AVX-512 (as dwc16).
var dwWideOK = dwc16OK
