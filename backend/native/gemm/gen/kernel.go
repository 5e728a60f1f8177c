// The micro-kernels: packed (kernel.emit) and direct (A read in place).

package main

import "fmt"

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

type kernel struct {
	name   string
	avx512 bool // zmm with embedded broadcast; else ymm with VBROADCASTSS
	mr, nv int  // rows; vectors per row (nr = nv·lanes)
	pfB    int  // B prefetch distance in bytes
	full   int  // for a partial kernel (mr < the panel height), the panel height
	// direct: A read in place from a row-major matrix (row stride lda)
	// instead of a packed micro-panel
	direct bool
	// panel: vectors per k step of the B panel, when more than nv (a
	// half kernel: the first nv·lanes columns of a wider panel)
	panel int
	// bcst: each multiply-add broadcasts its A element from memory
	// (embedded broadcast, one micro-fused load+FMA) instead of sharing
	// a VBROADCASTSS into a register (packed AVX-512 kernels only)
	bcst bool
	// panels: a direct kernel that runs over a row of consecutive B
	// panels (its last argument, at least one), the C tiles side by
	// side, in one call: a 16-deep product's tiles each paid more in the
	// Go calls around the kernel than a fifth of its multiply-adds
	panels bool
	// colMajor: a direct kernel whose A is column-major (A's rows side
	// by side in memory, k steps lda apart: a transposed operand, as a
	// weight gradient's xᵀ), read in place instead of packed
	colMajor bool
	// taps: a direct kernel over a row of tiles whose B is read in place
	// (k step q's vector at b + offs[q] bytes, offs an []int; the next
	// tile 4·lanes·nv bytes on): an implicit convolution's image rows,
	// nothing packed
	taps bool
}

// astride is the floats of A per k step: the full height mr for a
// partial kernel (the last rows of a panel) too.
func (k kernel) astride() int {
	if k.full > 0 {
		return k.full
	}
	return k.mr
}

func (k kernel) lanes() int {
	if k.avx512 {
		return 16
	}
	return 8
}

func (k kernel) emit(w func(string, ...any), set bool) {
	vb := 4 * k.lanes() // bytes per vector
	reg := func(i int) string {
		if k.avx512 {
			return fmt.Sprintf("Z%d", i)
		}
		return fmt.Sprintf("Y%d", i)
	}
	name := k.name + "acc"
	if set {
		name = k.name + "set"
	}
	nacc := k.mr * k.nv
	// rowPointers sets R12 and R13 to A's rows 5 and 10 (direct)
	rowPointers := func() {
		if k.colMajor {
			return
		}
		if k.mr > 5 {
			w("\tLEAQ (AX)(R10*4), R12")
			w("\tADDQ R10, R12") // row 5
		}
		if k.mr > 10 {
			w("\tLEAQ (R12)(R10*4), R13")
			w("\tADDQ R10, R13") // row 10
		}
	}
	if k.panels && !k.taps {
		name += "n"
	}
	if k.taps {
		name += "n"
		w("// func %s(kc int, a *float32, lda int, b *float32, offs *int, c *float32, ldc int, panels int)", name)
		w("TEXT ·%s(SB), NOSPLIT, $0-64", name)
		w("\tMOVQ kc+0(FP), CX")
		w("\tMOVQ a+8(FP), AX")
		w("\tMOVQ lda+16(FP), R10")
		w("\tMOVQ b+24(FP), BX")
		w("\tMOVQ offs+32(FP), R14")
		w("\tMOVQ c+40(FP), DI")
		w("\tMOVQ ldc+48(FP), DX")
		w("\tMOVQ panels+56(FP), R9")
		w("\tMOVQ DI, SI")
		w("\tSHLQ $2, R10")
		w("\tLEAQ (R10)(R10*2), R11")
		rowPointers()
	} else if k.direct {
		if k.panels {
			w("// func %s(kc int, a *float32, lda int, b, c *float32, ldc int, panels int)", name)
			w("TEXT ·%s(SB), NOSPLIT, $0-56", name)
		} else {
			w("// func %s(kc int, a *float32, lda int, b, c *float32, ldc int)", name)
			w("TEXT ·%s(SB), NOSPLIT, $0-48", name)
		}
		w("\tMOVQ kc+0(FP), CX")
		w("\tMOVQ a+8(FP), AX")
		w("\tMOVQ lda+16(FP), R10")
		w("\tMOVQ b+24(FP), BX")
		w("\tMOVQ c+32(FP), DI")
		w("\tMOVQ ldc+40(FP), DX")
		if k.panels {
			w("\tMOVQ panels+48(FP), R9")
			w("\tMOVQ DI, SI") // the tile's C
		}
		w("\tSHLQ $2, R10")
		w("\tLEAQ (R10)(R10*2), R11") // 3 rows
		rowPointers()
	} else {
		w("// func %s(kc int, a, b, c *float32, ldc int)", name)
		w("TEXT ·%s(SB), NOSPLIT, $0-40", name)
		w("\tMOVQ kc+0(FP), CX")
		w("\tMOVQ a+8(FP), AX")
		w("\tMOVQ b+16(FP), BX")
		w("\tMOVQ c+24(FP), DI")
		w("\tMOVQ ldc+32(FP), DX")
	}
	w("\tSHLQ $2, DX")
	if k.panels || k.taps {
		w("%s_panel:", name)
	}
	// prefetch the C tile: every line a row of the tile touches
	w("\tMOVQ DI, R8")
	for r := 0; r < k.mr; r++ {
		for off := 0; off < vb*k.nv; off += 64 {
			w("\tPREFETCHT0 %d(R8)", off)
		}
		w("\tPREFETCHT0 %d(R8)", vb*k.nv-4)
		if r < k.mr-1 {
			w("\tADDQ DX, R8")
		}
	}
	for r := 0; r < nacc; r++ {
		if k.avx512 {
			w("\tVPXORD %s, %s, %s", reg(r), reg(r), reg(r))
		} else {
			w("\tVXORPS %s, %s, %s", reg(r), reg(r), reg(r))
		}
	}
	w("\tTESTQ CX, CX")
	w("\tJEQ %s_store", name)
	// one k step at A + aoff, B + boff
	step := func(aoff, boff int) {
		if k.taps {
			// boff 0 or not: the first or second step of a pair
			w("\tMOVQ %d(R14), R8", 8*b2i(boff != 0))
			for v := 0; v < k.nv; v++ {
				w("\tVMOVUPS %d(BX)(R8*1), %s", vb*v, reg(nacc+v))
			}
		} else {
			for v := 0; v < k.nv; v++ {
				w("\tVMOVUPS %d(BX), %s", boff+vb*v, reg(nacc+v))
			}
			for off := 0; off < vb*k.nv; off += 64 {
				w("\tPREFETCHT0 %d(BX)", k.pfB+boff+off)
			}
		}
		// one broadcast per A element, alternating between the free
		// registers so consecutive rows do not wait on each other
		nbc := 1
		if k.avx512 {
			nbc = 32 - nacc - k.nv
		}
		for r := 0; r < k.mr; r++ {
			if k.bcst && !k.direct {
				for v := 0; v < k.nv; v++ {
					w("\tVFMADD231PS.BCST %d(AX), %s, %s", aoff+4*r, reg(nacc+v), reg(r*k.nv+v))
				}
				continue
			}
			bc := reg(nacc + k.nv + r%nbc)
			if k.colMajor {
				// the step after the first in a pair is lda bytes on
				idx := ""
				if aoff != 0 {
					idx = "(R10*1)"
				}
				w("\tVBROADCASTSS %d(AX)%s, %s", 4*r, idx, bc)
			} else if k.direct {
				w("\tVBROADCASTSS %s, %s", directRow(r, aoff), bc)
			} else {
				w("\tVBROADCASTSS %d(AX), %s", aoff+4*r, bc)
			}
			for v := 0; v < k.nv; v++ {
				w("\tVFMADD231PS %s, %s, %s", bc, reg(nacc+v), reg(r*k.nv+v))
			}
		}
	}
	as, bs := 4*k.astride(), vb*max(k.nv, k.panel)
	advanceA := func(n int) {
		if k.colMajor {
			if n == as {
				w("\tADDQ R10, AX")
			} else {
				w("\tLEAQ (AX)(R10*2), AX")
			}
			return
		}
		w("\tADDQ $%d, AX", n)
		if k.direct && k.mr > 5 {
			w("\tADDQ $%d, R12", n)
		}
		if k.direct && k.mr > 10 {
			w("\tADDQ $%d, R13", n)
		}
	}
	if k.direct {
		as = 4 // one float of each row per k step
	}
	// an odd step first, then the loop two steps at a time (half the
	// pointer and counter updates)
	w("\tTESTQ $1, CX")
	w("\tJEQ %s_even", name)
	advanceB := func(steps int) {
		if k.taps {
			w("\tADDQ $%d, R14", 8*steps)
			return
		}
		w("\tADDQ $%d, BX", steps*bs)
	}
	step(0, 0)
	advanceA(as)
	advanceB(1)
	w("%s_even:", name)
	w("\tSHRQ $1, CX")
	w("\tJEQ %s_store", name)
	w("%s_loop:", name)
	step(0, 0)
	step(as, bs)
	advanceA(2 * as)
	advanceB(2)
	w("\tDECQ CX")
	w("\tJNE %s_loop", name)
	w("%s_store:", name)
	for r := 0; r < k.mr; r++ {
		for v := 0; v < k.nv; v++ {
			if !set {
				w("\tVADDPS %d(DI), %s, %s", vb*v, reg(r*k.nv+v), reg(r*k.nv+v))
			}
			w("\tVMOVUPS %s, %d(DI)", reg(r*k.nv+v), vb*v)
		}
		if r < k.mr-1 {
			w("\tADDQ DX, DI")
		}
	}
	if k.taps {
		// the next tile: B's positions a tile on, the offsets and A from
		// their start again, C a tile to the right
		w("\tDECQ R9")
		w("\tJEQ %s_done", name)
		w("\tMOVQ kc+0(FP), CX")
		w("\tMOVQ a+8(FP), AX")
		w("\tMOVQ offs+32(FP), R14")
		rowPointers()
		w("\tADDQ $%d, BX", vb*k.nv)
		w("\tADDQ $%d, SI", vb*k.nv)
		w("\tMOVQ SI, DI")
		w("\tJMP %s_panel", name)
		w("%s_done:", name)
	} else if k.panels {
		// the next panel: B runs on from where this one ended; A from
		// its start again, C a tile to the right
		w("\tDECQ R9")
		w("\tJEQ %s_done", name)
		w("\tMOVQ kc+0(FP), CX")
		w("\tMOVQ a+8(FP), AX")
		rowPointers()
		w("\tADDQ $%d, SI", vb*k.nv)
		w("\tMOVQ SI, DI")
		w("\tJMP %s_panel", name)
		w("%s_done:", name)
	}
	w("\tVZEROUPPER")
	w("\tRET")
	w("")
}

// directRow is the address of row r (< 14) of a direct kernel's A, disp
// bytes on: AX is row 0, R12 row 5, R13 row 10, R10 the row stride in
// bytes and R11 three times it (the addressing of transposeA14).
func directRow(r, disp int) string {
	return fmt.Sprintf("%d%s", disp, []string{"(AX)", "(AX)(R10*1)", "(AX)(R10*2)", "(AX)(R11*1)", "(AX)(R10*4)", "(R12)",
		"(AX)(R11*2)", "(R12)(R10*2)", "(AX)(R10*8)", "(R12)(R10*4)", "(R13)", "(R12)(R11*2)", "(AX)(R11*4)", "(R12)(R10*8)"}[r])
}

var kernels = []kernel{
	{name: "k14x32", avx512: true, mr: 14, nv: 2, pfB: 1024},
	{name: "k6x16", avx512: false, mr: 6, nv: 2, pfB: 512},
}

// directName names the kernel that reads r rows of A in place.
func directName(r, nr int) string { return fmt.Sprintf("k%dx%dd", r, nr) }

// directTName names the kernel that reads r rows of a column-major A in
// place.
func directTName(r, nr int) string { return fmt.Sprintf("k%dx%dt", r, nr) }

// tapsName names the direct kernel over a row of tiles of nr columns
// whose B is read in place through offsets.
func tapsName(r, nr int) string { return fmt.Sprintf("k%dx%dy", r, nr) }

// halfName names the direct kernel for the first nr/2 columns of a panel.
func halfName(r, nr int) string { return fmt.Sprintf("k%dx%dof%dd", r, nr/2, nr) }

// packedHalfName names the packed kernel for r of mr rows and the first
// nr/2 columns of a panel.
func packedHalfName(r, mr, nr int) string { return fmt.Sprintf("k%dof%dx%dof%dp", r, mr, nr/2, nr) }
