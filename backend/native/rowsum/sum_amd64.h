// LANES8(ps, ss) folds the eight lanes of Y0 by halves (4, 2 and 1
// apart) with the vector op ps and the scalar op ss into one float, stores
// it at (DI) and advances DI: the last steps of a row's sum (VADDPS,
// VADDSS) or maximum (VMAXPS, VMAXSS), one tree for the AVX-512 loops
// (sum_amd64.s) and the AVX2 ones (sum_avx2_amd64.s), so both fold alike.
#define LANES8(ps, ss) \
	VEXTRACTF128 $1, Y0, X1 \
	ps X1, X0, X0 \
	VMOVHLPS X0, X0, X1 \
	ps X1, X0, X0 \
	VMOVSHDUP X0, X1 \
	ss X1, X0, X0 \
	MOVSS X0, (DI) \
	ADDQ $4, DI
