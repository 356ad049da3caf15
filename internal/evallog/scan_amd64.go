package evallog

import "golang.org/x/sys/cpu"

// stage1AVX2 (scan_amd64.s) writes the token bitmap of blocks blocks of 64
// bytes at p to out, carrying state from block to block and call to call,
// and returns the OR of their error bits.
//
//go:noescape
func stage1AVX2(p *byte, blocks int, out *uint64, state *[4]uint64) uint64

// hasStage1 is whether this CPU runs stage1AVX2.
var hasStage1 = cpu.X86.HasAVX2

func stage1(p *byte, blocks int, out *uint64, state *[4]uint64) uint64 {
	return stage1AVX2(p, blocks, out, state)
}
