// laneMask: 16 all-ones words, then 16 zero words, the masks of the
// AVX2 kernels' partial vectors (VMASKMOVPS, blends): the mask of a
// vector's first n ≤ 8 lanes is the 32 bytes from word 16-n on
// (·laneMask+64-4n), that of 16 lanes' first n ≤ 16 the 64 bytes from
// word 16-n on. One table for the package's assembly.

//go:build amd64 && !purego

#include "textflag.h"

DATA ·laneMask+0(SB)/8, $0xffffffffffffffff
DATA ·laneMask+8(SB)/8, $0xffffffffffffffff
DATA ·laneMask+16(SB)/8, $0xffffffffffffffff
DATA ·laneMask+24(SB)/8, $0xffffffffffffffff
DATA ·laneMask+32(SB)/8, $0xffffffffffffffff
DATA ·laneMask+40(SB)/8, $0xffffffffffffffff
DATA ·laneMask+48(SB)/8, $0xffffffffffffffff
DATA ·laneMask+56(SB)/8, $0xffffffffffffffff
DATA ·laneMask+64(SB)/8, $0
DATA ·laneMask+72(SB)/8, $0
DATA ·laneMask+80(SB)/8, $0
DATA ·laneMask+88(SB)/8, $0
DATA ·laneMask+96(SB)/8, $0
DATA ·laneMask+104(SB)/8, $0
DATA ·laneMask+112(SB)/8, $0
DATA ·laneMask+120(SB)/8, $0
GLOBL ·laneMask(SB), RODATA|NOPTR, $128
