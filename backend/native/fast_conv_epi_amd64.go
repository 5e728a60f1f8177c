//go:build amd64 && !purego

package native

import "golang.org/x/sys/cpu"

// affineRows32 is the AVX2 epilogue of fast_conv_epi_amd64.s (epiArgs).
//
//go:noescape
func affineRows32(p *epiArgs)

// affineRows16 is its AVX-512 form (sixteen lanes, masked last step).
//
//go:noescape
func affineRows16(p *epiArgs)

// affine512 selects affineRows16 (tests switch it off to run the AVX2
// form too).
var affine512 = cpu.X86.HasAVX512F && cpu.X86.HasAVX512DQ && cpu.X86.HasBMI2

// affineRows runs the widest affine epilogue the CPU has.
func affineRows(p *epiArgs) {
	if affine512 {
		affineRows16(p)
		return
	}
	affineRows32(p)
}
