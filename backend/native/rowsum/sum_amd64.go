//go:build amd64 && !purego

package rowsum

import "golang.org/x/sys/cpu"

// sum64add adds blocks of 64 floats of x into the 64 slots of acc, slot
// j taking element j of each block (sum_amd64.s).
//
//go:noescape
func sum64add(acc *[64]float32, x *float32, blocks int)

// max32x is the maximum of x[:n] (n ≥ 1) in sixteen lanes, and whether
// one was NaN (sum_amd64.s).
//
//go:noescape
func max32x(x *float32, n int) (m float32, nan bool)

var sumSIMDOK = cpu.X86.HasAVX512F

// sum32x is the slots' total of x[:n] (rowSum's add and total in one
// pass, sum_amd64.s).
//
//go:noescape
func sum32x(x *float32, n int) float32

// sumRows32x is sum32x of rows rows of n elements end to end, into d
// (sum_amd64.s).
//
//go:noescape
func sumRows32x(x *float32, n, rows int, d *float32)

// maxRows32x is max32x of rows rows of n elements end to end, into d and
// nan (sum_amd64.s).
//
//go:noescape
func maxRows32x(x *float32, n, rows int, d *float32, nan *bool)
