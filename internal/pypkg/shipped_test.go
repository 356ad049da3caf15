package pypkg_test

import (
	"bytes"
	"flag"
	"io"
	"os"
	"path/filepath"
	"testing"

	"empties/internal/guard"
	"empties/internal/pypkg"
	"empties/internal/testutil"
)

var update = flag.Bool("update", false, "rewrite the data the Python package ships (python/src/empties/_data)")

// The Python package ships the classifier's vocabulary (`empties schema
// --format json`) and the eval profiles as the Go code reads them; a change
// on the Go side without the shipped copies rewritten fails here.
func TestShippedData(t *testing.T) {
	root := testutil.RepoRoot(t)
	vocab, err := pypkg.Vocabulary()
	if err != nil {
		t.Fatal(err)
	}
	profiles, err := pypkg.Profiles(root, filepath.Join(root, "data", "profiles"))
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string][]byte{"vocabulary.json": vocab, "profiles.json": profiles} {
		path := filepath.Join(root, pypkg.DataDir, name)
		if *update { // a file of the package's own, replaced whole through the guard
			if err := guard.WriteFile(path, true, func(w io.Writer) error { _, err := w.Write(want); return err }); err != nil {
				t.Fatal(err)
			}
			continue
		}
		got, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("%v (write it: go test ./internal/pypkg -run TestShippedData -update)", err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s differs from what the Go code exports: the Python package would classify or score with stale data; rewrite it with `go test ./internal/pypkg -run TestShippedData -update` and commit it", filepath.Join(pypkg.DataDir, name))
		}
	}
}
