// The vector loop of max pooling with indices (fast_window_argmax.go) for
// windows 3 columns wide at column stride 2: 8 adjacent outputs per step.
// A window row's 16 input columns give the taps of column 0 and 1 (their
// even and odd elements, VSHUFPS), and the 16 from column 2 on those of
// column 2. The lanes then hold outputs 0 2 1 3 4 6 5 7... in VSHUFPS's
// order (0, 1, 4, 5, 2, 3, 6, 7), the same for values and indices, and
// are put back in order when stored. Each tap is folded as
// argmaxPlanePos folds it: taken where it is larger than the running
// value or a NaN (VCMPPS GT_OQ, UNORD), so equal values keep the earlier
// (smaller) position and among NaNs the later one wins. Positions are
// int32 lanes, widened to int64 on the store. Written by hand; see
// fast_window_argmax_test.go.

//go:build amd64 && !purego

#include "textflag.h"

// the position of each lane's first tap relative to the group's first
DATA argmaxLanes<>+0(SB)/4, $0
DATA argmaxLanes<>+4(SB)/4, $2
DATA argmaxLanes<>+8(SB)/4, $8
DATA argmaxLanes<>+12(SB)/4, $10
DATA argmaxLanes<>+16(SB)/4, $4
DATA argmaxLanes<>+20(SB)/4, $6
DATA argmaxLanes<>+24(SB)/4, $12
DATA argmaxLanes<>+28(SB)/4, $14
GLOBL argmaxLanes<>(SB), RODATA|NOPTR, $32

// TAKE folds the taps with values V and positions I into Y8 (values) and
// Y9 (positions); clobbers Y4, Y5.
#define TAKE(V, I) \
	VCMPPS $0x1E, Y8, V, Y4 \
	VCMPPS $0x03, V, V, Y5 \
	VORPS Y5, Y4, Y4 \
	VBLENDVPS Y4, V, Y8, Y8 \
	VBLENDVPS Y4, I, Y9, Y9

// func argmax3s2x8(src *float32, rowStep, kh int, ov *float32, oi *int64, pos, groups int)
TEXT ·argmax3s2x8(SB), NOSPLIT, $0-56
	MOVQ src+0(FP), SI
	MOVQ rowStep+8(FP), R8
	MOVQ kh+16(FP), R9
	MOVQ ov+24(FP), DI
	MOVQ oi+32(FP), DX
	MOVQ pos+40(FP), R10
	MOVQ groups+48(FP), CX
	MOVQ R8, R11
	SHLQ $2, R11 // bytes from one window row to the next
	VMOVDQU argmaxLanes<>(SB), Y10
	MOVL $1, AX
	VMOVD AX, X12
	VPBROADCASTD X12, Y12 // 1 in each lane
	VPADDD Y12, Y12, Y13  // 2
group:
	TESTQ CX, CX
	JZ done
	MOVQ SI, BX  // window row's first input
	MOVQ R10, R12 // its position
	MOVQ R9, R13  // window rows left
	// column 0 of window row 0: every lane's first tap
	VMOVUPS (BX), Y0
	VMOVUPS 32(BX), Y1
	VSHUFPS $0x88, Y1, Y0, Y8
	VMOVD R12, X11
	VPBROADCASTD X11, Y11
	VPADDD Y10, Y11, Y9
	JMP cols12
row:
	VMOVUPS (BX), Y0
	VMOVUPS 32(BX), Y1
	VSHUFPS $0x88, Y1, Y0, Y2
	VMOVD R12, X11
	VPBROADCASTD X11, Y11
	VPADDD Y10, Y11, Y3
	TAKE(Y2, Y3)
cols12:
	VSHUFPS $0xDD, Y1, Y0, Y2 // column 1: the odd elements
	VPADDD Y10, Y11, Y3
	VPADDD Y12, Y3, Y3
	TAKE(Y2, Y3)
	VMOVUPS 8(BX), Y0 // column 2: the even elements from column 2 on
	VMOVUPS 40(BX), Y1
	VSHUFPS $0x88, Y1, Y0, Y2
	VPADDD Y10, Y11, Y3
	VPADDD Y13, Y3, Y3
	TAKE(Y2, Y3)
	ADDQ R11, BX
	ADDQ R8, R12
	DECQ R13
	JNZ row
	// lanes back in order; positions widened to int64
	VPERMPD $0xD8, Y8, Y8
	VMOVUPS Y8, (DI)
	VPERMQ $0xD8, Y9, Y9
	VPMOVSXDQ X9, Y5
	VMOVDQU Y5, (DX)
	VEXTRACTI128 $1, Y9, X6
	VPMOVSXDQ X6, Y6
	VMOVDQU Y6, 32(DX)
	ADDQ $64, SI
	ADDQ $32, DI
	ADDQ $64, DX
	ADDQ $16, R10
	DECQ CX
	JMP group
done:
	VZEROUPPER
	RET
