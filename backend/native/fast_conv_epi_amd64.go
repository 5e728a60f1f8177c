//go:build amd64 && !purego

package native

// affineRows32 is the AVX2 epilogue of fast_conv_epi_amd64.s (epiArgs).
//
//go:noescape
func affineRows32(p *epiArgs)
