//go:build !amd64

package evallog

// hasRangeBlocks is false: this architecture has no vectorised range scan,
// and the scanner walks a .json log's values byte by byte.
var hasRangeBlocks = false

func rangeBlocks(p *byte, blocks int, st *rangeState) int {
	panic("evallog: no range scan on this architecture")
}
