package bootstrap

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// The same data and seed give the same resamples; another seed or another
// cell gives others.
func TestBootstrapIsSeeded(t *testing.T) {
	draw := func(seed uint64, cell ...string) []int {
		var out []int
		ForEachResample(seed, 5, 10, cell, func(_ int, idx []int) { out = append(out, idx...) })
		return out
	}
	a := draw(1, "tight_vs_default", "hle", "r1")
	if len(a) != 50 {
		t.Fatalf("%d draws, want 5 resamples × 10", len(a))
	}
	if b := draw(1, "tight_vs_default", "hle", "r1"); !slices.Equal(a, b) {
		t.Error("the same seed and cell gave different draws")
	}
	if b := draw(2, "tight_vs_default", "hle", "r1"); slices.Equal(a, b) {
		t.Error("another seed gave the same draws")
	}
	if b := draw(1, "tight_vs_default", "hle", "r2"); slices.Equal(a, b) {
		t.Error("another cell gave the same draws")
	}
	if CellHash("ab", "c") == CellHash("a", "bc") {
		t.Error("the cell hash does not separate its parts")
	}
}

// The draws are those of rand.New(rand.NewPCG(seed, CellHash(cell))).IntN,
// the stream rescore's headline intervals used before there was one
// bootstrap, so moving to it changed no interval.
func TestDrawsAreRandIntN(t *testing.T) {
	cell := []string{"xstest_safe", "r1", "default"}
	rng := rand.New(rand.NewPCG(20261022, CellHash(cell...)))
	ForEachResample(20261022, 20, 37, cell, func(r int, idx []int) {
		for j, i := range idx {
			if want := rng.IntN(37); i != want {
				t.Fatalf("resample %d draw %d: %d, rand.IntN %d", r, j, i, want)
			}
		}
	})
}

// intN draws exactly what math/rand/v2's Rand.IntN draws from the same PCG.
func TestIntNIsRandIntN(t *testing.T) {
	for _, n := range []int{1, 2, 3, 7, 64, 150, 450, 1000, 10007, 1 << 20, 3 << 40} {
		a := rand.NewPCG(20261022, uint64(n))
		b := rand.New(rand.NewPCG(20261022, uint64(n)))
		for i := 0; i < 10000; i++ {
			if x, y := intN(a, n), b.IntN(n); x != y {
				t.Fatalf("n=%d draw %d: %d, rand.IntN %d", n, i, x, y)
			}
		}
	}
}
