//go:build amd64 && !purego

package rowsum

import "golang.org/x/sys/cpu"

// sum64add adds blocks of 64 floats of x into the 64 slots of acc, slot
// j taking element j of each block: the widest form the CPU has.
func sum64add(acc *[64]float32, x *float32, blocks int) {
	if sum512 {
		sum64addZ(acc, x, blocks)
		return
	}
	sum64addY(acc, x, blocks)
}

// sumRows32x sets d[r] to the slots' total of row r of x (rows rows of n
// elements end to end; rowSum's add and total in one pass): the widest
// form the CPU has.
func sumRows32x(x *float32, n, rows int, d *float32) {
	if sum512 {
		sumRows32xZ(x, n, rows, d)
		return
	}
	sumRowsY(x, n, rows, d)
}

// maxRows32x sets d[r] to the maximum of row r of x (rows rows of n ≥ 1
// elements end to end) in sixteen lanes, and nan[r] to whether one was
// NaN: the widest form the CPU has.
func maxRows32x(x *float32, n, rows int, d *float32, nan *bool) {
	if sum512 {
		maxRows32xZ(x, n, rows, d, nan)
		return
	}
	maxRowsY(x, n, rows, d, nan)
}

// sumSIMDOK: the vector loops run here (AVX2 at least). sum512 picks the
// AVX-512 forms (sum_amd64.s) over the AVX2 ones (sum_avx2_amd64.s); both
// give the same bits, and tests switch it off to run the AVX2 forms too.
var (
	sumSIMDOK = cpu.X86.HasAVX2
	sum512    = cpu.X86.HasAVX512F
)

//go:noescape
func sum64addZ(acc *[64]float32, x *float32, blocks int)

//go:noescape
func sumRows32xZ(x *float32, n, rows int, d *float32)

//go:noescape
func maxRows32xZ(x *float32, n, rows int, d *float32, nan *bool)

//go:noescape
func sum64addY(acc *[64]float32, x *float32, blocks int)

//go:noescape
func sumRowsY(x *float32, n, rows int, d *float32)

//go:noescape
func maxRowsY(x *float32, n, rows int, d *float32, nan *bool)
