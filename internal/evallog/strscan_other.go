//go:build !amd64

package evallog

// indexSpecial does not look: this architecture has no vectorised scan
// (strscan_amd64.go).
func indexSpecial(b []byte) (int, bool) { return 0, false }

// hasAVX2 and simdStrings are false here (SetSIMDScan).
var hasAVX2, simdStrings = false, false
