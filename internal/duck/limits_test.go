package duck_test

import (
	"testing"

	"empties/internal/duck"
)

// Size flags read as the help says; what is no size is an error.
func TestParseBytes(t *testing.T) {
	for in, want := range map[string]int64{"0": 0, "512": 512, "4GiB": 4 << 30, "4 GiB": 4 << 30, "1.5gib": 3 << 29, "500MB": 500e6, "2tb": 2e12, "64KiB": 64 << 10} {
		if got, err := duck.ParseBytes(in); err != nil || got != want {
			t.Errorf("ParseBytes(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	if got, err := duck.ParseBytes("50%"); err != nil || got != duck.TotalMemory()/2 {
		t.Errorf("ParseBytes(50%%) = %d, %v; want half of %d", got, err, duck.TotalMemory())
	}
	for _, in := range []string{"", "x", "4GX", "-1GB", "150%", "0%", "1e30TB", "GB"} {
		if _, err := duck.ParseBytes(in); err == nil {
			t.Errorf("ParseBytes(%q) is no error", in)
		}
	}
	for n, want := range map[int64]string{512: "512 B", 64 << 20: "64 MiB", 3 << 29: "1.5 GiB", 0: "DuckDB's default"} {
		if got := duck.Bytes(n); got != want {
			t.Errorf("Bytes(%d) = %q, want %q", n, got, want)
		}
	}
}
