// The macros of fuse_rows_simd_amd64.s: one loop shape per kind of row
// kernel, each with its AVX2 path and, behind rowsWide, its AVX-512 path.
// Included by that file only (it holds the instances; the masks are
// laneMask, lanemask_amd64.s).

// Loops over [0, n&^7) with AX the index, then, for r = n%8 > 0, loads
// the mask of r lanes into Y15 and runs the tail once.
#define HEAD \
	MOVQ CX, BX \
	ANDQ $-8, BX \
	XORQ AX, AX

#define TAILMASK \
	CMPQ AX, CX \
	JAE done \
	MOVQ CX, R9 \
	SUBQ AX, R9 \
	SHLQ $2, R9 \
	LEAQ ·laneMask+64(SB), R10 \
	SUBQ R9, R10 \
	VMOVDQU (R10), Y15

// The AVX-512 paths (rowsWide: AVX512F and BMI2): the binary ops 32 lanes
// per step in two registers, then at most one of 16, the selects 16 per
// step (compare into a k-mask, y merged with x or xs under it); then the
// rest through a k-mask
// (masked loads and stores neither read nor write the lanes past n, and
// are fast on Zen 4, where VMASKMOVPS stores are not). Each lane is the
// same scalar op as the AVX2 path's.
#define WIDEHEAD \
	MOVQ CX, BX \
	ANDQ $-32, BX \
	XORQ AX, AX

#define WIDEHEAD16 \
	MOVQ CX, BX \
	ANDQ $-16, BX \
	XORQ AX, AX

// WIDEMASK: for r = n - AX remaining lanes (1..15), K1 holds r ones.
#define WIDEMASK \
	MOVQ CX, R9 \
	SUBQ AX, R9 \
	MOVQ $1, R10 \
	SHLXQ R9, R10, R10 \
	DECQ R10 \
	KMOVW R10, K1

// d = x op y
#define BINRR(name, op) \
TEXT name(SB), NOSPLIT, $0-32 \
	MOVQ d+0(FP), DI \
	MOVQ x+8(FP), SI \
	MOVQ y+16(FP), DX \
	MOVQ n+24(FP), CX \
	CMPB ·rowsWide(SB), $0 \
	JNE wide \
	HEAD \
loop: \
	CMPQ AX, BX \
	JAE tail \
	VMOVUPS (SI)(AX*4), Y0 \
	op (DX)(AX*4), Y0, Y1 \
	VMOVUPS Y1, (DI)(AX*4) \
	ADDQ $8, AX \
	JMP loop \
tail: \
	TAILMASK \
	VMASKMOVPS (SI)(AX*4), Y15, Y0 \
	VMASKMOVPS (DX)(AX*4), Y15, Y2 \
	op Y2, Y0, Y1 \
	VMASKMOVPS Y1, Y15, (DI)(AX*4) \
done: \
	VZEROUPPER \
	RET \
wide: \
	WIDEHEAD \
wloop: \
	CMPQ AX, BX \
	JAE wone \
	VMOVUPS (SI)(AX*4), Z0 \
	VMOVUPS 64(SI)(AX*4), Z3 \
	op (DX)(AX*4), Z0, Z1 \
	op 64(DX)(AX*4), Z3, Z4 \
	VMOVUPS Z1, (DI)(AX*4) \
	VMOVUPS Z4, 64(DI)(AX*4) \
	ADDQ $32, AX \
	JMP wloop \
wone: \
	MOVQ CX, BX \
	ANDQ $-16, BX \
	CMPQ AX, BX \
	JAE wtail \
	VMOVUPS (SI)(AX*4), Z0 \
	op (DX)(AX*4), Z0, Z1 \
	VMOVUPS Z1, (DI)(AX*4) \
	ADDQ $16, AX \
wtail: \
	CMPQ AX, CX \
	JAE wdone \
	WIDEMASK \
	VMOVUPS.Z (SI)(AX*4), K1, Z0 \
	VMOVUPS.Z (DX)(AX*4), K1, Z2 \
	op Z2, Z0, Z1 \
	VMOVUPS Z1, K1, (DI)(AX*4) \
wdone: \
	VZEROUPPER \
	RET

// d = x op c
#define BINRS(name, op) \
TEXT name(SB), NOSPLIT, $0-32 \
	MOVQ d+0(FP), DI \
	MOVQ x+8(FP), SI \
	MOVQ n+24(FP), CX \
	CMPB ·rowsWide(SB), $0 \
	JNE wide \
	VBROADCASTSS c+16(FP), Y2 \
	HEAD \
loop: \
	CMPQ AX, BX \
	JAE tail \
	VMOVUPS (SI)(AX*4), Y0 \
	op Y2, Y0, Y1 \
	VMOVUPS Y1, (DI)(AX*4) \
	ADDQ $8, AX \
	JMP loop \
tail: \
	TAILMASK \
	VMASKMOVPS (SI)(AX*4), Y15, Y0 \
	op Y2, Y0, Y1 \
	VMASKMOVPS Y1, Y15, (DI)(AX*4) \
done: \
	VZEROUPPER \
	RET \
wide: \
	VBROADCASTSS c+16(FP), Z2 \
	WIDEHEAD \
wloop: \
	CMPQ AX, BX \
	JAE wone \
	VMOVUPS (SI)(AX*4), Z0 \
	VMOVUPS 64(SI)(AX*4), Z3 \
	op Z2, Z0, Z1 \
	op Z2, Z3, Z4 \
	VMOVUPS Z1, (DI)(AX*4) \
	VMOVUPS Z4, 64(DI)(AX*4) \
	ADDQ $32, AX \
	JMP wloop \
wone: \
	MOVQ CX, BX \
	ANDQ $-16, BX \
	CMPQ AX, BX \
	JAE wtail \
	VMOVUPS (SI)(AX*4), Z0 \
	op Z2, Z0, Z1 \
	VMOVUPS Z1, (DI)(AX*4) \
	ADDQ $16, AX \
wtail: \
	CMPQ AX, CX \
	JAE wdone \
	WIDEMASK \
	VMOVUPS.Z (SI)(AX*4), K1, Z0 \
	op Z2, Z0, Z1 \
	VMOVUPS Z1, K1, (DI)(AX*4) \
wdone: \
	VZEROUPPER \
	RET

// d = c op y
#define BINSR(name, op) \
TEXT name(SB), NOSPLIT, $0-32 \
	MOVQ d+0(FP), DI \
	MOVQ y+16(FP), DX \
	MOVQ n+24(FP), CX \
	CMPB ·rowsWide(SB), $0 \
	JNE wide \
	VBROADCASTSS c+8(FP), Y2 \
	HEAD \
loop: \
	CMPQ AX, BX \
	JAE tail \
	op (DX)(AX*4), Y2, Y1 \
	VMOVUPS Y1, (DI)(AX*4) \
	ADDQ $8, AX \
	JMP loop \
tail: \
	TAILMASK \
	VMASKMOVPS (DX)(AX*4), Y15, Y0 \
	op Y0, Y2, Y1 \
	VMASKMOVPS Y1, Y15, (DI)(AX*4) \
done: \
	VZEROUPPER \
	RET \
wide: \
	VBROADCASTSS c+8(FP), Z2 \
	WIDEHEAD \
wloop: \
	CMPQ AX, BX \
	JAE wone \
	op (DX)(AX*4), Z2, Z1 \
	op 64(DX)(AX*4), Z2, Z4 \
	VMOVUPS Z1, (DI)(AX*4) \
	VMOVUPS Z4, 64(DI)(AX*4) \
	ADDQ $32, AX \
	JMP wloop \
wone: \
	MOVQ CX, BX \
	ANDQ $-16, BX \
	CMPQ AX, BX \
	JAE wtail \
	op (DX)(AX*4), Z2, Z1 \
	VMOVUPS Z1, (DI)(AX*4) \
	ADDQ $16, AX \
wtail: \
	CMPQ AX, CX \
	JAE wdone \
	WIDEMASK \
	VMOVUPS.Z (DX)(AX*4), K1, Z0 \
	op Z0, Z2, Z1 \
	VMOVUPS Z1, K1, (DI)(AX*4) \
wdone: \
	VZEROUPPER \
	RET

// d = (a pred b) ? xs : y, b and xs scalars
#define SELSR(name, pred) \
TEXT name(SB), NOSPLIT, $0-40 \
	MOVQ d+0(FP), DI \
	MOVQ a+8(FP), SI \
	MOVQ y+24(FP), DX \
	MOVQ n+32(FP), CX \
	CMPB ·rowsWide(SB), $0 \
	JNE wide \
	VBROADCASTSS b+16(FP), Y2 \
	VBROADCASTSS xs+20(FP), Y3 \
	HEAD \
loop: \
	CMPQ AX, BX \
	JAE tail \
	VMOVUPS (SI)(AX*4), Y0 \
	VCMPPS pred, Y2, Y0, Y1 \
	VMOVUPS (DX)(AX*4), Y4 \
	VBLENDVPS Y1, Y3, Y4, Y5 \
	VMOVUPS Y5, (DI)(AX*4) \
	ADDQ $8, AX \
	JMP loop \
tail: \
	TAILMASK \
	VMASKMOVPS (SI)(AX*4), Y15, Y0 \
	VCMPPS pred, Y2, Y0, Y1 \
	VMASKMOVPS (DX)(AX*4), Y15, Y4 \
	VBLENDVPS Y1, Y3, Y4, Y5 \
	VMASKMOVPS Y5, Y15, (DI)(AX*4) \
done: \
	VZEROUPPER \
	RET \
wide: \
	VBROADCASTSS b+16(FP), Z2 \
	VBROADCASTSS xs+20(FP), Z3 \
	WIDEHEAD16 \
wloop: \
	CMPQ AX, BX \
	JAE wtail \
	VMOVUPS (SI)(AX*4), Z0 \
	VCMPPS pred, Z2, Z0, K2 \
	VMOVUPS (DX)(AX*4), Z4 \
	VMOVAPS Z3, K2, Z4 \
	VMOVUPS Z4, (DI)(AX*4) \
	ADDQ $16, AX \
	JMP wloop \
wtail: \
	CMPQ AX, CX \
	JAE wdone \
	WIDEMASK \
	VMOVUPS.Z (SI)(AX*4), K1, Z0 \
	VCMPPS pred, Z2, Z0, K1, K2 \
	VMOVUPS.Z (DX)(AX*4), K1, Z4 \
	VMOVAPS Z3, K2, Z4 \
	VMOVUPS Z4, K1, (DI)(AX*4) \
wdone: \
	VZEROUPPER \
	RET

// d = (a pred b) ? x : y, b a scalar
#define SELRR(name, pred) \
TEXT name(SB), NOSPLIT, $0-48 \
	MOVQ d+0(FP), DI \
	MOVQ a+8(FP), SI \
	MOVQ x+24(FP), R8 \
	MOVQ y+32(FP), DX \
	MOVQ n+40(FP), CX \
	CMPB ·rowsWide(SB), $0 \
	JNE wide \
	VBROADCASTSS b+16(FP), Y2 \
	HEAD \
loop: \
	CMPQ AX, BX \
	JAE tail \
	VMOVUPS (SI)(AX*4), Y0 \
	VCMPPS pred, Y2, Y0, Y1 \
	VMOVUPS (DX)(AX*4), Y4 \
	VBLENDVPS Y1, (R8)(AX*4), Y4, Y5 \
	VMOVUPS Y5, (DI)(AX*4) \
	ADDQ $8, AX \
	JMP loop \
tail: \
	TAILMASK \
	VMASKMOVPS (SI)(AX*4), Y15, Y0 \
	VCMPPS pred, Y2, Y0, Y1 \
	VMASKMOVPS (DX)(AX*4), Y15, Y4 \
	VMASKMOVPS (R8)(AX*4), Y15, Y6 \
	VBLENDVPS Y1, Y6, Y4, Y5 \
	VMASKMOVPS Y5, Y15, (DI)(AX*4) \
done: \
	VZEROUPPER \
	RET \
wide: \
	VBROADCASTSS b+16(FP), Z2 \
	WIDEHEAD16 \
wloop: \
	CMPQ AX, BX \
	JAE wtail \
	VMOVUPS (SI)(AX*4), Z0 \
	VCMPPS pred, Z2, Z0, K2 \
	VMOVUPS (DX)(AX*4), Z4 \
	VMOVUPS (R8)(AX*4), K2, Z4 \
	VMOVUPS Z4, (DI)(AX*4) \
	ADDQ $16, AX \
	JMP wloop \
wtail: \
	CMPQ AX, CX \
	JAE wdone \
	WIDEMASK \
	VMOVUPS.Z (SI)(AX*4), K1, Z0 \
	VCMPPS pred, Z2, Z0, K1, K2 \
	VMOVUPS.Z (DX)(AX*4), K1, Z4 \
	VMOVUPS (R8)(AX*4), K2, Z4 \
	VMOVUPS Z4, K1, (DI)(AX*4) \
wdone: \
	VZEROUPPER \
	RET

// d = (a pred b) ? x : y, every operand a row
#define SELRRR(name, pred) \
TEXT name(SB), NOSPLIT, $0-48 \
	MOVQ d+0(FP), DI \
	MOVQ a+8(FP), SI \
	MOVQ b+16(FP), R11 \
	MOVQ x+24(FP), R8 \
	MOVQ y+32(FP), DX \
	MOVQ n+40(FP), CX \
	CMPB ·rowsWide(SB), $0 \
	JNE wide \
	HEAD \
loop: \
	CMPQ AX, BX \
	JAE tail \
	VMOVUPS (SI)(AX*4), Y0 \
	VMOVUPS (R11)(AX*4), Y2 \
	VCMPPS pred, Y2, Y0, Y1 \
	VMOVUPS (DX)(AX*4), Y4 \
	VBLENDVPS Y1, (R8)(AX*4), Y4, Y5 \
	VMOVUPS Y5, (DI)(AX*4) \
	ADDQ $8, AX \
	JMP loop \
tail: \
	TAILMASK \
	VMASKMOVPS (SI)(AX*4), Y15, Y0 \
	VMASKMOVPS (R11)(AX*4), Y15, Y2 \
	VCMPPS pred, Y2, Y0, Y1 \
	VMASKMOVPS (DX)(AX*4), Y15, Y4 \
	VMASKMOVPS (R8)(AX*4), Y15, Y6 \
	VBLENDVPS Y1, Y6, Y4, Y5 \
	VMASKMOVPS Y5, Y15, (DI)(AX*4) \
done: \
	VZEROUPPER \
	RET \
wide: \
	WIDEHEAD16 \
wloop: \
	CMPQ AX, BX \
	JAE wtail \
	VMOVUPS (SI)(AX*4), Z0 \
	VCMPPS pred, (R11)(AX*4), Z0, K2 \
	VMOVUPS (DX)(AX*4), Z4 \
	VMOVUPS (R8)(AX*4), K2, Z4 \
	VMOVUPS Z4, (DI)(AX*4) \
	ADDQ $16, AX \
	JMP wloop \
wtail: \
	CMPQ AX, CX \
	JAE wdone \
	WIDEMASK \
	VMOVUPS.Z (SI)(AX*4), K1, Z0 \
	VMOVUPS.Z (R11)(AX*4), K1, Z2 \
	VCMPPS pred, Z2, Z0, K1, K2 \
	VMOVUPS.Z (DX)(AX*4), K1, Z4 \
	VMOVUPS (R8)(AX*4), K2, Z4 \
	VMOVUPS Z4, K1, (DI)(AX*4) \
wdone: \
	VZEROUPPER \
	RET
