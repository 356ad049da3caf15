package testutil

import (
	"os"
	"testing"
)

// Python returns the project's interpreter (.venv, with the pinned
// inspect_ai) and an environment whose PYTHONPATH puts this checkout's
// python/src first, so a test reads this checkout's package whatever copy
// the shared venv holds. Without .venv the test fails: the differential
// tests with the Python package are part of what CI checks.
func Python(t testing.TB) (py string, env []string) {
	t.Helper()
	py = Path(t, ".venv", "bin", "python")
	if _, err := os.Stat(py); err != nil {
		t.Fatalf("the Python package tests need the project's .venv (run `make venv`): %v", err)
	}
	return py, append(os.Environ(), "PYTHONPATH="+Path(t, "python", "src"), "PYTHONDONTWRITEBYTECODE=1")
}
