// The range scan of a .json log's values (rangescan.go): 64 bytes a block,
// the brackets outside strings counted until the value's depth comes back
// to 0. Strings are told as simdjson tells them (Langdale and Lemire,
// "Parsing Gigabytes of JSON per Second", 2019; the escape scan is
// simdjson's json_escape_scanner.h, as in scan_amd64.s): the backslashes
// and the bytes they escape, the unescaped quotes, and their prefix XOR (a
// carry-less multiply by all ones) for the bytes inside strings.

#include "textflag.h"

DATA rsQuote<>+0(SB)/1, $0x22
GLOBL rsQuote<>(SB), RODATA|NOPTR, $1
DATA rsBackslash<>+0(SB)/1, $0x5c
GLOBL rsBackslash<>(SB), RODATA|NOPTR, $1
DATA rs20<>+0(SB)/1, $0x20
GLOBL rs20<>(SB), RODATA|NOPTR, $1
DATA rsOpen<>+0(SB)/1, $0x7b
GLOBL rsOpen<>(SB), RODATA|NOPTR, $1
DATA rsClose<>+0(SB)/1, $0x7d
GLOBL rsClose<>(SB), RODATA|NOPTR, $1
DATA rsOdd<>+0(SB)/8, $0xaaaaaaaaaaaaaaaa
GLOBL rsOdd<>(SB), RODATA|NOPTR, $8

// func rangeBlocksAVX2(p *byte, blocks int, st *rangeState) int
//
// st carries, from block to block and call to call: [0] the next block's
// first byte is escaped (0 or 1), [1] the last block ended inside a string
// (0 or all ones), [2] the depth; [3] gets the blocks gone through.
//
// It returns the offset from p past the bracket that brings the depth to
// 0, or 0 when no bracket does: then [3] is blocks, or, where a block holds
// a backslash outside strings (which no JSON does), that block's index, the
// state that of the block's start.
TEXT ·rangeBlocksAVX2(SB), NOSPLIT, $0-32
	MOVQ p+0(FP), SI
	MOVQ blocks+8(FP), CX
	MOVQ st+16(FP), R10
	MOVQ 0(R10), R8   // escaped carry
	MOVQ 8(R10), R9   // in-string carry
	MOVQ 16(R10), R11 // depth
	XORQ DI, DI       // blocks gone through

	VPBROADCASTB rsQuote<>(SB), Y15
	VPBROADCASTB rsBackslash<>(SB), Y14
	VPBROADCASTB rs20<>(SB), Y13
	VPBROADCASTB rsOpen<>(SB), Y12
	VPBROADCASTB rsClose<>(SB), Y11
	VPCMPEQB     X10, X10, X10 // all ones

loop:
	CMPQ DI, CX
	JGE  more

	VMOVDQU (SI), Y0
	VMOVDQU 32(SI), Y1

	// backslashes, then the escaped bytes (json_escape_scanner.h's next):
	// potential = bs &^ next_is_escaped; etc = ((potential<<1 | ODD) -
	// potential) ^ ODD; escaped = etc ^ (bs | next_is_escaped);
	// next_is_escaped = (etc & bs) >> 63
	VPCMPEQB  Y0, Y14, Y2
	VPMOVMSKB Y2, AX
	VPCMPEQB  Y1, Y14, Y3
	VPMOVMSKB Y3, BX
	SHLQ      $32, BX
	ORQ       BX, AX          // AX = backslashes
	MOVQ      R8, DX
	NOTQ      DX
	ANDQ      AX, DX          // DX = potential escapes
	MOVQ      DX, BX
	SHLQ      $1, BX
	ORQ       rsOdd<>(SB), BX
	SUBQ      DX, BX
	XORQ      rsOdd<>(SB), BX // BX = escape and terminal code
	MOVQ      AX, DX
	ORQ       R8, DX
	XORQ      BX, DX          // DX = escaped
	ANDQ      AX, BX
	SHRQ      $63, BX         // BX = the next escaped carry

	// the unescaped quotes, and the bytes inside strings: from an opening
	// quote up to its closing one
	VPCMPEQB   Y0, Y15, Y2
	VPMOVMSKB  Y2, R12
	VPCMPEQB   Y1, Y15, Y3
	VPMOVMSKB  Y3, R13
	SHLQ       $32, R13
	ORQ        R13, R12
	NOTQ       DX
	ANDQ       DX, R12          // R12 = unescaped quotes
	VMOVQ      R12, X4
	VPCLMULQDQ $0x00, X10, X4, X4
	VMOVQ      X4, R12
	XORQ       R9, R12          // R12 = inside strings

	// A backslash outside strings: the strings of the block may not be
	// what they seem (the byte walk does not read one there as an
	// escape), so the caller's byte walk takes the block.
	MOVQ  R12, DX
	NOTQ  DX                    // DX = outside strings
	TESTQ DX, AX
	JNZ   bail

	MOVQ BX, R8
	SARQ $63, R12
	MOVQ R12, R9

	// { and [ (and } and ]) are the bytes that OR 0x20 makes { (and })
	VPOR      Y0, Y13, Y2
	VPCMPEQB  Y2, Y12, Y3
	VPMOVMSKB Y3, AX
	VPCMPEQB  Y2, Y11, Y4
	VPMOVMSKB Y4, BX
	VPOR      Y1, Y13, Y2
	VPCMPEQB  Y2, Y12, Y3
	VPMOVMSKB Y3, R12
	VPCMPEQB  Y2, Y11, Y4
	VPMOVMSKB Y4, R13
	SHLQ      $32, R12
	ORQ       R12, AX
	ANDQ      DX, AX            // AX = openings outside strings
	SHLQ      $32, R13
	ORQ       R13, BX
	ANDQ      DX, BX            // BX = closings outside strings

	// Fewer closings than the depth: it stays above 0 in this block.
	POPCNTQ BX, R12
	CMPQ    R12, R11
	JGE     walk
	POPCNTQ AX, R13
	ADDQ    R13, R11
	SUBQ    R12, R11

next:
	ADDQ $64, SI
	INCQ DI
	JMP  loop

walk:
	// the brackets one by one, in order
	MOVQ AX, R12
	ORQ  BX, R12

bracket:
	TESTQ R12, R12
	JZ    next
	BSFQ  R12, R13
	BTQ   R13, AX
	JCC   closing
	INCQ  R11
	JMP   done

closing:
	DECQ R11
	JZ   found

done:
	LEAQ -1(R12), DX
	ANDQ DX, R12
	JMP  bracket

found:
	MOVQ DI, AX
	SHLQ $6, AX
	LEAQ 1(AX)(R13*1), AX
	JMP  ret

bail:
more:
	XORQ AX, AX

ret:
	MOVQ R8, 0(R10)
	MOVQ R9, 8(R10)
	MOVQ R11, 16(R10)
	MOVQ DI, 24(R10)
	VZEROUPPER
	MOVQ AX, ret+24(FP)
	RET
