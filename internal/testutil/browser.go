package testutil

import (
	"os"
	"os/exec"
	"testing"
)

// Chromium is the system Chromium the browser tests drive (Debian's
// chromium package, which `make chromium` installs; EMPTIES_CHROMIUM
// overrides). No browser is ever downloaded: a missing one fails the test.
func Chromium(t testing.TB) string {
	t.Helper()
	if p := os.Getenv("EMPTIES_CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Fatal("no chromium on PATH: run `make chromium` (apt-get install chromium) or set EMPTIES_CHROMIUM")
	return ""
}

// Artifacts is where a browser test keeps its screenshots: $EMPTIES_ARTIFACTS
// (make test sets out/ci), else a temporary folder.
func Artifacts(t testing.TB) string {
	t.Helper()
	dir := os.Getenv("EMPTIES_ARTIFACTS")
	if dir == "" {
		return t.TempDir()
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}
