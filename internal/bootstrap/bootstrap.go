// Package bootstrap draws the seeded bootstrap resamples every interval over
// samples uses (pre-registration §6; design.md "Statistics"): rescore's
// headline intervals and analyze's default-versus-tight deltas. A cell's
// resamples come from a PCG stream seeded by the manifest seed and a hash of
// the cell's name, so the same data and seed always give the same draws, and
// cells can be drawn in any order or in parallel.
package bootstrap

import (
	"hash/fnv"
	"math/bits"
	"math/rand/v2"
)

// ForEachResample calls fn(resample, indices) for every resample: n indices
// in [0, n), drawn with replacement from the cell's stream. fn must not keep
// indices (the slice is reused).
func ForEachResample(seed uint64, resamples, n int, cell []string, fn func(r int, indices []int)) {
	if n == 0 {
		return
	}
	pcg := rand.NewPCG(seed, CellHash(cell...))
	idx := make([]int, n)
	for r := 0; r < resamples; r++ {
		for j := range idx {
			idx[j] = intN(pcg, n)
		}
		fn(r, idx)
	}
}

// CellHash names a cell's stream: FNV-1a over the parts, each followed by a
// zero byte, so ("ab", "c") and ("a", "bc") differ.
func CellHash(parts ...string) uint64 {
	h := fnv.New64a()
	for _, p := range parts {
		h.Write([]byte(p))
		h.Write([]byte{0})
	}
	return h.Sum64()
}

// intN is rand.New(pcg).IntN(n) on 64-bit platforms (math/rand/v2's
// uint64n: a mask for powers of two, else Lemire's multiply with
// rejection), called on the concrete PCG: the interface call per draw was
// half the cost of a million-reply bootstrap. TestIntNIsRandIntN holds it to
// the library's stream.
func intN(pcg *rand.PCG, n int) int {
	u := uint64(n)
	if u&(u-1) == 0 {
		return int(pcg.Uint64() & (u - 1))
	}
	hi, lo := bits.Mul64(pcg.Uint64(), u)
	if lo < u {
		thresh := -u % u
		for lo < thresh {
			hi, lo = bits.Mul64(pcg.Uint64(), u)
		}
	}
	return int(hi)
}
