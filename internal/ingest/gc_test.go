package ingest

import (
	"context"
	"runtime/debug"
	"testing"

	"empties/internal/testutil"
)

// gcProbe is a Progress that reads the collector's target as the reading
// starts.
type gcProbe struct {
	noProgress
	percent int
}

func (p *gcProbe) Start(int) {
	p.percent = debug.SetGCPercent(-1)
	debug.SetGCPercent(p.percent)
}

// Ingest runs with the collector's target at gcPercent and restores the
// one it found; a GOGC the user set is left as it is.
func TestIngestCollectsMoreOften(t *testing.T) {
	before := debug.SetGCPercent(120)
	defer debug.SetGCPercent(before)
	for _, c := range []struct {
		gogc string
		want int
	}{{"", gcPercent}, {"120", 120}} {
		t.Setenv("GOGC", c.gogc)
		p := &gcProbe{}
		cfg := Config{Paths: []string{testutil.Path(t, "testdata", "logs", "zstd-basic.eval")}, Out: t.TempDir() + "/ds", Progress: p}
		if _, err := Ingest(context.Background(), cfg); err != nil {
			t.Fatal(err)
		}
		if p.percent != c.want {
			t.Errorf("GOGC %q: the collector's target during ingest %d, want %d", c.gogc, p.percent, c.want)
		}
		if after := debug.SetGCPercent(120); after != 120 {
			t.Errorf("GOGC %q: the collector's target after ingest %d, want it restored (120)", c.gogc, after)
		}
	}
}
