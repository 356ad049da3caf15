package evallog

import "golang.org/x/sys/cpu"

// rangeBlocksAVX2 (rangescan_amd64.s) goes through blocks blocks of 64
// bytes at p with the state st (see rangeState).
//
//go:noescape
func rangeBlocksAVX2(p *byte, blocks int, st *rangeState) int

// hasRangeBlocks is whether this CPU runs rangeBlocksAVX2.
var hasRangeBlocks = cpu.X86.HasAVX2 && cpu.X86.HasPCLMULQDQ && cpu.X86.HasPOPCNT

func rangeBlocks(p *byte, blocks int, st *rangeState) int {
	return rangeBlocksAVX2(p, blocks, st)
}
