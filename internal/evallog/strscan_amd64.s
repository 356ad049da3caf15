// The scan of indexSpecialAVX2 is goccy/go-json's indexStringSpecialAVX2
// (internal/decoder/string_scan_amd64.s, v0.12.0; MIT License, Copyright
// (c) 2020 Masaaki Goshima), without its count of the bytes of 0x80 or
// more.

#include "textflag.h"

// SPECIAL computes into Yd the lanes of the bytes of Yx that end a run of
// the plain bytes of a string: a quote, a backslash or a control byte
// (0x1f or less, which the unsigned minimum with 0x1f leaves unchanged).
// Y8, Y9 and Y10 hold the quote, the backslash and 0x1f in every lane; Yt
// is a temporary.
#define SPECIAL(Yx, Yt, Yd) \
	VPCMPEQB Y8, Yx, Yd \
	VPCMPEQB Y9, Yx, Yt \
	VPOR     Yt, Yd, Yd \
	VPMINUB  Y10, Yx, Yt \
	VPCMPEQB Yx, Yt, Yt \
	VPOR     Yt, Yd, Yd

// func indexSpecialAVX2(p unsafe.Pointer, n int) int
//
// The index of the first of the n bytes at p that is a quote, a backslash
// or a control byte, or n if there is none. n is 32 or more. The blocks of
// 32 bytes are looked at in order; the last block overlaps the one before.
TEXT ·indexSpecialAVX2(SB), NOSPLIT, $0-24
	MOVQ p+0(FP), SI
	MOVQ n+8(FP), CX

	VPBROADCASTB cQuote<>(SB), Y8
	VPBROADCASTB cBackslash<>(SB), Y9
	VPBROADCASTB c1f<>(SB), Y10

	MOVQ SI, DI                  // the address of the block
	LEAQ -32(SI)(CX*1), R11      // the address of the last block
loop:
	CMPQ DI, R11
	JGT  last
	VMOVDQU (DI), Y0
	SPECIAL(Y0, Y1, Y2)
	VPMOVMSKB Y2, DX
	TESTL DX, DX
	JNE   found
	ADDQ  $32, DI
	JMP   loop
last:
	// the last block, which overlaps the one before unless the blocks
	// ended exactly at n
	LEAQ (SI)(CX*1), AX
	CMPQ DI, AX
	JEQ  none
	MOVQ R11, DI
	VMOVDQU (DI), Y0
	SPECIAL(Y0, Y1, Y2)
	VPMOVMSKB Y2, DX
	TESTL DX, DX
	JNE   found
none:
	VZEROUPPER
	MOVQ CX, ret+16(FP)
	RET
found:
	BSFL  DX, DX
	SUBQ  SI, DI
	ADDQ  DX, DI
	VZEROUPPER
	MOVQ  DI, ret+16(FP)
	RET

DATA cQuote<>+0(SB)/1, $0x22
GLOBL cQuote<>(SB), RODATA|NOPTR, $1
DATA cBackslash<>+0(SB)/1, $0x5c
GLOBL cBackslash<>(SB), RODATA|NOPTR, $1
DATA c1f<>+0(SB)/1, $0x1f
GLOBL c1f<>(SB), RODATA|NOPTR, $1
