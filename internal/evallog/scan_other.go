//go:build !amd64

package evallog

// hasStage1 is false: this architecture has no vectorised structural pass,
// and the walk checks what it skips byte by byte (scan.go).
var hasStage1 = false

func stage1(p *byte, blocks int, out *uint64, state *[4]uint64) uint64 {
	panic("evallog: no structural pass on this architecture")
}
