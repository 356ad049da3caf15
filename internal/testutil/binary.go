package testutil

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
)

// Binary builds this checkout's empties binary once per test process (go
// build, with the shared build cache) and returns its path; RemoveBinary,
// from the package's TestMain, removes it.
func Binary(t testing.TB) string {
	t.Helper()
	built.once.Do(func() {
		dir, err := os.MkdirTemp("", "empties-bin-")
		if err != nil {
			built.err = err
			return
		}
		built.bin = filepath.Join(dir, "empties")
		cmd := exec.Command("go", "build", "-o", built.bin, "./cmd/empties")
		cmd.Dir = RepoRoot(t)
		if out, err := cmd.CombinedOutput(); err != nil {
			built.err = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if built.err != nil {
		t.Fatal(built.err)
	}
	return built.bin
}

var built struct {
	once sync.Once
	bin  string
	err  error
}

// RemoveBinary removes the binary Binary built, if it did.
func RemoveBinary() {
	if built.bin != "" {
		os.RemoveAll(filepath.Dir(built.bin))
	}
}
