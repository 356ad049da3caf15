package testutil

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// Witness is a hard link, in a temporary folder, to every file below dir
// (a dataset's generation), with the SHA-256 of its bytes: a file the code
// under test wrote into in place, rather than beside, changes under its
// link, which CheckWitness then reports.
type Witness map[string]string

// NewWitness links and hashes every file below dir.
func NewWitness(t testing.TB, dir string) Witness {
	t.Helper()
	links := t.TempDir()
	w := Witness{}
	err := filepath.WalkDir(dir, func(p string, e os.DirEntry, err error) error {
		if err != nil || e.IsDir() {
			return err
		}
		l := filepath.Join(links, fmt.Sprint(len(w)))
		if err := os.Link(p, l); err != nil {
			return err
		}
		w[l] = sha256Of(t, l)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return w
}

// Check reports a file of the witnessed generation whose bytes changed;
// step names the point of the test.
func (w Witness) Check(t testing.TB, step string) {
	t.Helper()
	for l, sum := range w {
		if sha256Of(t, l) != sum {
			t.Errorf("%s: a file of the previous generation was modified in place (%s)", step, l)
			return
		}
	}
}

// FileSums maps the base name of each file to the SHA-256 of its bytes.
func FileSums(t testing.TB, files []string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, f := range files {
		out[filepath.Base(f)] = sha256Of(t, f)
	}
	return out
}

func sha256Of(t testing.TB, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}
