// The structural pass of the validating scan (scan.go), simdjson's stage
// 1 (Langdale and Lemire, "Parsing Gigabytes of JSON per Second", 2019;
// the escape scan is simdjson's json_escape_scanner.h) in AVX2: 64 bytes
// a block, one token bitmap word a block out, the carries between blocks
// in state.

#include "textflag.h"

// func stage1AVX2(p *byte, blocks int, out *uint64, state *[4]uint64) uint64
//
// out gets two words a block: the tokens, then the backslashes.
//
// state: [0] the previous block ended in an escaping backslash (0 or 1),
// [1] it ended inside a string (0 or all ones), [2] it ended in a byte of
// a scalar (0 or 1), [3] the bits of this block that the \u escapes of the
// previous one need to be hex digits. The error word (the OR of every
// control byte inside a string, every escaped byte that is no JSON escape
// and every byte of a \u escape that is no hex digit) is ORed into
// state[0]'s neighbour out: it is returned in AX through ret.
TEXT ·stage1AVX2(SB), NOSPLIT, $0-40
	MOVQ p+0(FP), SI
	MOVQ blocks+8(FP), CX
	MOVQ out+16(FP), DI
	MOVQ state+24(FP), R10
	MOVQ 0(R10), R8  // next_is_escaped
	MOVQ 8(R10), R9  // prev_in_string
	XORQ R12, R12    // err

	VPBROADCASTB cQuote<>(SB), Y15
	VPBROADCASTB cBackslash<>(SB), Y14
	VPBROADCASTB c1f<>(SB), Y13
	VMOVDQU      wsTable<>(SB), Y12
	VMOVDQU      opTable<>(SB), Y11
	VPBROADCASTB c20<>(SB), Y10
	VPBROADCASTB c0f<>(SB), Y9

	TESTQ CX, CX
	JZ    done

loop:
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
	ORQ       BX, AX        // AX = bs
	MOVQ      AX, 8(DI)
	MOVQ      R8, DX
	NOTQ      DX
	ANDQ      AX, DX        // DX = potential escapes
	MOVQ      DX, BX
	SHLQ      $1, BX
	ORQ       oddBits<>(SB), BX
	SUBQ      DX, BX
	XORQ      oddBits<>(SB), BX // BX = escape_and_terminal_code
	MOVQ      AX, DX
	ORQ       R8, DX
	XORQ      BX, DX        // DX = escaped
	ANDQ      AX, BX
	SHRQ      $63, BX
	MOVQ      BX, R8

	MOVQ DX, AX
	ORQ  24(R10), AX
	JNZ  escapes

unescaped:
	// op = { } [ ] : , (looked up as byte|0x20, which also takes 0x0c and
	// 0x1a: control bytes, refused by the walk wherever they are a token)
	VPOR     Y0, Y10, Y2
	VPSHUFB  Y2, Y11, Y3
	VPCMPEQB Y2, Y3, Y2 // Y2 = op, low half
	VPOR     Y1, Y10, Y3
	VPSHUFB  Y3, Y11, Y4
	VPCMPEQB Y3, Y4, Y3 // Y3 = op, high half

	// not scalar = op | whitespace | quote
	VPSHUFB  Y0, Y12, Y4
	VPCMPEQB Y0, Y4, Y4
	VPCMPEQB Y0, Y15, Y5 // Y5 = quotes, low half
	VPOR     Y4, Y5, Y4
	VPOR     Y2, Y4, Y4  // Y4 = not scalar, low half
	VPSHUFB  Y1, Y12, Y6
	VPCMPEQB Y1, Y6, Y6
	VPCMPEQB Y1, Y15, Y7 // Y7 = quotes, high half
	VPOR     Y6, Y7, Y6
	VPOR     Y3, Y6, Y6  // Y6 = not scalar, high half

	// unescaped quotes, and the bytes inside strings (a prefix XOR: from
	// an opening quote up to its closing one)
	VPMOVMSKB Y5, AX
	VPMOVMSKB Y7, BX
	SHLQ      $32, BX
	ORQ       BX, AX
	NOTQ      DX
	ANDQ      AX, DX // DX = unescaped quotes
	MOVQ      DX, BX // BX = the tokens
	MOVQ      DX, R13
	SHLQ      $1, R13
	XORQ      R13, DX
	MOVQ      DX, R13
	SHLQ      $2, R13
	XORQ      R13, DX
	MOVQ      DX, R13
	SHLQ      $4, R13
	XORQ      R13, DX
	MOVQ      DX, R13
	SHLQ      $8, R13
	XORQ      R13, DX
	MOVQ      DX, R13
	SHLQ      $16, R13
	XORQ      R13, DX
	MOVQ      DX, R13
	SHLQ      $32, R13
	XORQ      R13, DX
	XORQ      R9, DX // DX = inside a string
	MOVQ      DX, R9
	SARQ      $63, R9

	// control bytes inside strings
	VPMINUB   Y0, Y13, Y8
	VPCMPEQB  Y0, Y8, Y8
	VPMOVMSKB Y8, R11
	VPMINUB   Y1, Y13, Y8
	VPCMPEQB  Y1, Y8, Y8
	VPMOVMSKB Y8, R13
	SHLQ      $32, R13
	ORQ       R13, R11
	ANDQ      DX, R11
	ORQ       R11, R12

	// tokens: the quotes, op outside strings, the first byte of each run
	// of scalar bytes outside strings
	NOTQ      DX // DX = outside strings
	VPMOVMSKB Y2, R11
	VPMOVMSKB Y3, R13
	SHLQ      $32, R13
	ORQ       R13, R11
	ANDQ      DX, R11
	ORQ       R11, BX
	VPMOVMSKB Y4, R11
	VPMOVMSKB Y6, R13
	SHLQ      $32, R13
	ORQ       R13, R11
	NOTQ      R11
	ANDQ      DX, R11 // R11 = scalar bytes
	MOVQ      R11, R13
	SHLQ      $1, R13
	ORQ       16(R10), R13
	MOVQ      R11, AX
	SHRQ      $63, AX
	MOVQ      AX, 16(R10)
	NOTQ      R13
	ANDQ      R13, R11
	ORQ       R11, BX
	MOVQ      BX, (DI)

	ADDQ $64, SI
	ADDQ $16, DI
	DECQ CX
	JNZ  loop

done:
	MOVQ R8, 0(R10)
	MOVQ R9, 8(R10)
	VZEROUPPER
	MOVQ R12, ret+32(FP)
	RET

escapes:
	// DX = escaped. An escaped byte must be one of "\/bfnrtu, looked up
	// by its nibbles (escLo[low] & escHi[high] is not 0); the four bytes
	// after a \u must be hex digits (hexLo, hexHi), some of them maybe in
	// the next block (state[3]).
	VPAND     Y0, Y9, Y2
	VPSRLW    $4, Y0, Y3
	VPAND     Y3, Y9, Y3
	VMOVDQU   escLo<>(SB), Y4
	VPSHUFB   Y2, Y4, Y5
	VMOVDQU   escHi<>(SB), Y4
	VPSHUFB   Y3, Y4, Y6
	VPAND     Y5, Y6, Y5 // Y5 = escape codes, low half
	VPAND     Y1, Y9, Y2
	VPSRLW    $4, Y1, Y3
	VPAND     Y3, Y9, Y3
	VMOVDQU   escLo<>(SB), Y4
	VPSHUFB   Y2, Y4, Y6
	VMOVDQU   escHi<>(SB), Y4
	VPSHUFB   Y3, Y4, Y7
	VPAND     Y6, Y7, Y6 // Y6 = escape codes, high half
	VPXOR     Y4, Y4, Y4
	VPCMPEQB  Y4, Y5, Y5
	VPMOVMSKB Y5, AX
	VPCMPEQB  Y4, Y6, Y6
	VPMOVMSKB Y6, BX
	SHLQ      $32, BX
	ORQ       BX, AX
	ANDQ      DX, AX
	ORQ       AX, R12 // escaped bytes that are no escape code

	VPBROADCASTB cU<>(SB), Y4
	VPCMPEQB     Y0, Y4, Y5
	VPMOVMSKB    Y5, BX
	VPCMPEQB     Y1, Y4, Y5
	VPMOVMSKB    Y5, R11
	SHLQ         $32, R11
	ORQ          R11, BX
	ANDQ         DX, BX // BX = the u of each \u
	MOVQ         BX, AX
	ORQ          24(R10), AX
	JZ           unescaped

	// hex digits: Y2, Y3 hold the high half's nibbles
	VMOVDQU   hexLo<>(SB), Y4
	VPSHUFB   Y2, Y4, Y6
	VMOVDQU   hexHi<>(SB), Y4
	VPSHUFB   Y3, Y4, Y7
	VPAND     Y6, Y7, Y6 // Y6 = hex digits, high half
	VPAND     Y0, Y9, Y2
	VPSRLW    $4, Y0, Y3
	VPAND     Y3, Y9, Y3
	VPSHUFB   Y3, Y4, Y7
	VMOVDQU   hexLo<>(SB), Y4
	VPSHUFB   Y2, Y4, Y5
	VPAND     Y5, Y7, Y5 // Y5 = hex digits, low half
	VPXOR     Y4, Y4, Y4
	VPCMPEQB  Y4, Y5, Y5
	VPMOVMSKB Y5, AX
	VPCMPEQB  Y4, Y6, Y6
	VPMOVMSKB Y6, R11
	SHLQ      $32, R11
	ORQ       R11, AX // AX = not hex digits

	MOVQ BX, R11
	SHLQ $1, R11
	MOVQ BX, R13
	SHLQ $2, R13
	ORQ  R13, R11
	MOVQ BX, R13
	SHLQ $3, R13
	ORQ  R13, R11
	MOVQ BX, R13
	SHLQ $4, R13
	ORQ  R13, R11
	ORQ  24(R10), R11
	ANDQ AX, R11
	ORQ  R11, R12 // a \u's four bytes that are no hex digits
	MOVQ BX, R11
	SHRQ $60, R11
	MOVQ BX, R13
	SHRQ $61, R13
	ORQ  R13, R11
	MOVQ BX, R13
	SHRQ $62, R13
	ORQ  R13, R11
	MOVQ BX, R13
	SHRQ $63, R13
	ORQ  R13, R11
	MOVQ R11, 24(R10)
	JMP  unescaped

DATA cQuote<>+0(SB)/1, $0x22
GLOBL cQuote<>(SB), RODATA|NOPTR, $1
DATA cBackslash<>+0(SB)/1, $0x5c
GLOBL cBackslash<>(SB), RODATA|NOPTR, $1
DATA c1f<>+0(SB)/1, $0x1f
GLOBL c1f<>(SB), RODATA|NOPTR, $1
DATA c20<>+0(SB)/1, $0x20
GLOBL c20<>(SB), RODATA|NOPTR, $1
DATA c0f<>+0(SB)/1, $0x0f
GLOBL c0f<>(SB), RODATA|NOPTR, $1
DATA cU<>+0(SB)/1, $0x75
GLOBL cU<>(SB), RODATA|NOPTR, $1
DATA oddBits<>+0(SB)/8, $0xaaaaaaaaaaaaaaaa
GLOBL oddBits<>(SB), RODATA|NOPTR, $8

// wsTable[low nibble] is the whitespace byte of that low nibble (space,
// \t, \n, \r), 0 elsewhere; a byte is whitespace when the lookup by it
// gives it back (a byte of 0x80 or more looks up 0).
DATA wsTable<>+0(SB)/8, $0x0000000000000020
DATA wsTable<>+8(SB)/8, $0x00000d00000a0900
DATA wsTable<>+16(SB)/8, $0x0000000000000020
DATA wsTable<>+24(SB)/8, $0x00000d00000a0900
GLOBL wsTable<>(SB), RODATA|NOPTR, $32

// opTable, the same for byte|0x20: { and [ give 0x7b, } and ] 0x7d, :
// 0x3a, , 0x2c.
DATA opTable<>+0(SB)/8, $0x0000000000000000
DATA opTable<>+8(SB)/8, $0x00007d2c7b3a0000
DATA opTable<>+16(SB)/8, $0x0000000000000000
DATA opTable<>+24(SB)/8, $0x00007d2c7b3a0000
GLOBL opTable<>(SB), RODATA|NOPTR, $32

// escLo[low] & escHi[high] is not 0 for the bytes " \ / b f n r t u:
// high nibble 2 bit 1, 5 bit 2, 6 bit 4, 7 bit 8; low 2: " b r (1|4|8),
// 4: t (8), 5: u (8), 6: f (4), c: \ (2), e: n (4), f: / (1).
DATA escLo<>+0(SB)/8, $0x00040808000d0000
DATA escLo<>+8(SB)/8, $0x0104000200000000
DATA escLo<>+16(SB)/8, $0x00040808000d0000
DATA escLo<>+24(SB)/8, $0x0104000200000000
GLOBL escLo<>(SB), RODATA|NOPTR, $32
DATA escHi<>+0(SB)/8, $0x0804020000010000
DATA escHi<>+8(SB)/8, $0x0000000000000000
DATA escHi<>+16(SB)/8, $0x0804020000010000
DATA escHi<>+24(SB)/8, $0x0000000000000000
GLOBL escHi<>(SB), RODATA|NOPTR, $32

// hexLo[low] & hexHi[high] is not 0 for 0-9 (high 3: bit 1, low 0-9) and
// a-f, A-F (high 4 and 6: bit 2, low 1-6).
DATA hexLo<>+0(SB)/8, $0x0103030303030301
DATA hexLo<>+8(SB)/8, $0x0000000000000101
DATA hexLo<>+16(SB)/8, $0x0103030303030301
DATA hexLo<>+24(SB)/8, $0x0000000000000101
GLOBL hexLo<>(SB), RODATA|NOPTR, $32
DATA hexHi<>+0(SB)/8, $0x0002000201000000
DATA hexHi<>+8(SB)/8, $0x0000000000000000
DATA hexHi<>+16(SB)/8, $0x0002000201000000
DATA hexHi<>+24(SB)/8, $0x0000000000000000
GLOBL hexHi<>(SB), RODATA|NOPTR, $32
