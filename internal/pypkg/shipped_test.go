package pypkg_test

import (
	"bytes"
	"flag"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
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
	for name, want := range map[string][]byte{filepath.Join(pypkg.DataDir, "vocabulary.json"): vocab, filepath.Join(pypkg.StudyDataDir, "profiles.json"): profiles} {
		path := filepath.Join(root, name)
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
			t.Errorf("%s differs from what the Go code exports: the Python package would classify or score with stale data; rewrite it with `go test ./internal/pypkg -run TestShippedData -update` and commit it", name)
		}
	}
}

// FixtureDir is where the package's tests keep their copy of the classifier's
// fixture logs (testdata/classify: the logs and golden.tsv), so they run from
// the package's sdist, away from this repository.
const FixtureDir = "python/tests/data/classify"

// The package's tests ship a copy of testdata/classify's logs and golden.tsv
// (the fixtures scripts/fixtures/classify_fixtures.py writes); a fixture
// rewritten without its copy fails here, and -update copies them again.
func TestShippedFixtures(t *testing.T) {
	root := testutil.RepoRoot(t)
	src, dst := filepath.Join(root, "testdata", "classify"), filepath.Join(root, FixtureDir)
	shipped := func(name string) bool { return strings.HasSuffix(name, ".eval") || name == "golden.tsv" }
	names := func(dir string) []string {
		entries, err := os.ReadDir(dir)
		if err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
		var out []string
		for _, e := range entries {
			if e.Type().IsRegular() {
				out = append(out, e.Name())
			}
		}
		return out
	}
	want := slices.DeleteFunc(names(src), func(n string) bool { return !shipped(n) })
	if len(want) < 28 {
		t.Fatalf("%s: %d fixtures", src, len(want))
	}
	for _, n := range want {
		b, err := os.ReadFile(filepath.Join(src, n))
		if err != nil {
			t.Fatal(err)
		}
		if *update {
			if err := guard.WriteFile(filepath.Join(dst, n), true, func(w io.Writer) error { _, err := w.Write(b); return err }); err != nil {
				t.Fatal(err)
			}
			continue
		}
		got, err := os.ReadFile(filepath.Join(dst, n))
		if err != nil || !bytes.Equal(got, b) {
			t.Errorf("%s is not a copy of testdata/classify/%s: copy the fixtures with `go test ./internal/pypkg -run TestShippedFixtures -update`", filepath.Join(FixtureDir, n), n)
		}
	}
	for _, n := range names(dst) {
		if slices.Contains(want, n) {
			continue
		}
		if *update {
			if err := guard.RemoveFile(dst, n); err != nil {
				t.Fatal(err)
			}
			continue
		}
		t.Errorf("%s is not in testdata/classify: remove it with `go test ./internal/pypkg -run TestShippedFixtures -update`", filepath.Join(FixtureDir, n))
	}
}

// The package ships the project's licence as python/LICENSE (a wheel's
// license-files must lie inside python/, so it is a copy of the root's): a
// change to one without the other fails here.
func TestShippedLicence(t *testing.T) {
	root, err := os.ReadFile(testutil.Path(t, "LICENSE"))
	if err != nil {
		t.Fatal(err)
	}
	pkg, err := os.ReadFile(testutil.Path(t, "python", "LICENSE"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(root, []byte("MIT License")) {
		t.Errorf("LICENSE is not the MIT licence the package metadata names")
	}
	if !bytes.Equal(root, pkg) {
		t.Errorf("python/LICENSE is not a copy of LICENSE: cp LICENSE python/LICENSE")
	}
}
