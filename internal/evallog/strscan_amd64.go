package evallog

import (
	"unsafe"

	"golang.org/x/sys/cpu"
)

//go:noescape
func indexSpecialAVX2(p unsafe.Pointer, n int) int

var hasAVX2 = cpu.X86.HasAVX2

// simdStrings is whether indexSpecial looks: where the CPU has AVX2, but
// for SetSIMDScan(false).
var simdStrings = hasAVX2

// indexSpecial is the index of the first byte of b that is a quote, a
// backslash or a control byte (below 0x20), or len(b) if there is none;
// ok is false when it did not look (no AVX2, or b shorter than 32 bytes).
func indexSpecial(b []byte) (i int, ok bool) {
	if !simdStrings || len(b) < 32 {
		return 0, false
	}
	return indexSpecialAVX2(unsafe.Pointer(unsafe.SliceData(b)), len(b)), true
}
