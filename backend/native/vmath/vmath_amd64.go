//go:build amd64 && !purego

package vmath

import "golang.org/x/sys/cpu"

// The loops of gen_vmath_amd64.s: n elements, n a multiple of 16 (the
// *16 loops, AVX-512) or of 8 (the *8 loops, AVX2 with FMA).

//go:noescape
func vneg16(d, x *float32, n int)

//go:noescape
func vneg8(d, x *float32, n int)

//go:noescape
func vabs16(d, x *float32, n int)

//go:noescape
func vabs8(d, x *float32, n int)

//go:noescape
func vsqrt16(d, x *float32, n int)

//go:noescape
func vsqrt8(d, x *float32, n int)

//go:noescape
func vsilu16(d, x *float32, n int)

//go:noescape
func vsilu8(d, x *float32, n int)

//go:noescape
func vgelu16(d, x *float32, n int)

//go:noescape
func vgelu8(d, x *float32, n int)

//go:noescape
func vexp16(d, x *float32, n int)

//go:noescape
func vexp8(d, x *float32, n int)

//go:noescape
func vlogistic16(d, x *float32, n int)

//go:noescape
func vlogistic8(d, x *float32, n int)

//go:noescape
func vtanh16(d, x *float32, n int)

//go:noescape
func vtanh8(d, x *float32, n int)

//go:noescape
func verf16(d, x *float32, n int)

//go:noescape
func verf8(d, x *float32, n int)

//go:noescape
func vhardswish16(d, x *float32, n int)

//go:noescape
func vgelutanh16(d, x *float32, n int)

//go:noescape
func vgelutanh8(d, x *float32, n int)

//go:noescape
func vgelutanhin16(d, x *float32, n int)

//go:noescape
func vgelutanhin8(d, x *float32, n int)

//go:noescape
func vhardswish8(d, x *float32, n int)

//go:noescape
func vgelubwd16(d, a, b *float32, n int)

//go:noescape
func vgelubwd8(d, a, b *float32, n int)

//go:noescape
func vgelutanhbwd16(d, a, b *float32, n int)

//go:noescape
func vgelutanhbwd8(d, a, b *float32, n int)

// vmathLanes is 16 where the AVX-512 loops run, 8 where the AVX2 ones do,
// 0 where neither does (tests lower it to run the narrower loops).
var vmathLanes = vmathWidest()

// vmathLaneCounts lists the loop widths this CPU runs, widest first.
func vmathLaneCounts() []int {
	switch vmathWidest() {
	case 16:
		return []int{16, 8}
	case 8:
		return []int{8}
	}
	return nil
}

func vmathWidest() int {
	switch {
	case cpu.X86.HasAVX512F:
		return 16
	case cpu.X86.HasAVX2 && cpu.X86.HasFMA:
		return 8
	}
	return 0
}

// vloops runs kernel k over the whole vectors of x into d (of x's length)
// and returns how many elements it did.
func vloops(k int, d, x []float32) int {
	lanes := vmathLanes
	if lanes == 0 {
		return 0
	}
	n := len(d) &^ (lanes - 1)
	if n == 0 {
		return 0
	}
	_, _ = d[n-1], x[n-1]
	if lanes == 16 {
		switch k {
		case vkNeg:
			vneg16(&d[0], &x[0], n)
		case vkAbs:
			vabs16(&d[0], &x[0], n)
		case vkSiLU:
			vsilu16(&d[0], &x[0], n)
		case vkGELU:
			vgelu16(&d[0], &x[0], n)
		case vkExp:
			vexp16(&d[0], &x[0], n)
		case vkLogistic:
			vlogistic16(&d[0], &x[0], n)
		case vkTanh:
			vtanh16(&d[0], &x[0], n)
		case vkErf:
			verf16(&d[0], &x[0], n)
		case vkHardswish:
			vhardswish16(&d[0], &x[0], n)
		case vkGELUTanh:
			vgelutanh16(&d[0], &x[0], n)
		case vkGELUTanhIn:
			vgelutanhin16(&d[0], &x[0], n)
		case vkSqrt:
			vsqrt16(&d[0], &x[0], n)
		}
		return n
	}
	switch k {
	case vkNeg:
		vneg8(&d[0], &x[0], n)
	case vkAbs:
		vabs8(&d[0], &x[0], n)
	case vkSiLU:
		vsilu8(&d[0], &x[0], n)
	case vkGELU:
		vgelu8(&d[0], &x[0], n)
	case vkExp:
		vexp8(&d[0], &x[0], n)
	case vkLogistic:
		vlogistic8(&d[0], &x[0], n)
	case vkTanh:
		vtanh8(&d[0], &x[0], n)
	case vkErf:
		verf8(&d[0], &x[0], n)
	case vkHardswish:
		vhardswish8(&d[0], &x[0], n)
	case vkGELUTanh:
		vgelutanh8(&d[0], &x[0], n)
	case vkGELUTanhIn:
		vgelutanhin8(&d[0], &x[0], n)
	case vkSqrt:
		vsqrt8(&d[0], &x[0], n)
	}
	return n
}

// vloops2 runs kernel k, of two inputs, over the whole vectors of a and
// b into d (all of d's length) and returns how many elements it did.
func vloops2(k int, d, a, b []float32) int {
	lanes := vmathLanes
	if lanes == 0 || (k != vkGELUTanhBackward && k != vkGELUBackward) {
		return 0
	}
	n := len(d) &^ (lanes - 1)
	if n == 0 {
		return 0
	}
	_, _, _ = d[n-1], a[n-1], b[n-1]
	switch {
	case k == vkGELUBackward && lanes == 16:
		vgelubwd16(&d[0], &a[0], &b[0], n)
	case k == vkGELUBackward:
		vgelubwd8(&d[0], &a[0], &b[0], n)
	case lanes == 16:
		vgelutanhbwd16(&d[0], &a[0], &b[0], n)
	default:
		vgelutanhbwd8(&d[0], &a[0], &b[0], n)
	}
	return n
}
