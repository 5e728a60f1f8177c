//go:build amd64 && !purego

package rowsum

import "golang.org/x/sys/cpu"

// sum64add adds blocks of 64 floats of x into the 64 slots of acc, slot
// j taking element j of each block (sum_amd64.s).
//
//go:noescape
func sum64add(acc *[64]float32, x *float32, blocks int)

var sumSIMDOK = cpu.X86.HasAVX512F

// sumRows32x sets d[r] to the slots' total of row r of x (rows rows of n
// elements end to end; rowSum's add and total in one pass, sum_amd64.s).
//
//go:noescape
func sumRows32x(x *float32, n, rows int, d *float32)

// maxRows32x sets d[r] to the maximum of row r of x (rows rows of n ≥ 1
// elements end to end) in sixteen lanes, and nan[r] to whether one was
// NaN (sum_amd64.s).
//
//go:noescape
func maxRows32x(x *float32, n, rows int, d *float32, nan *bool)
