package pypkg_test

import (
	"archive/zip"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"empties/internal/testutil"
)

// freshVenv makes a virtual environment of its own (no pip, no packages)
// that sees the project venv's site-packages through a .pth file, so the
// package's dependencies (the pinned inspect_ai) and the build backend are
// there without a download, and what is installed goes into the new one
// (scripts/wheel/fresh_venv.py, as `make notebook` makes its venv).
func freshVenv(t *testing.T, dir string) string {
	t.Helper()
	py, _ := python(t)
	out, err := exec.Command(py, testutil.Path(t, "scripts", "wheel", "fresh_venv.py"), dir).Output()
	if err != nil {
		t.Fatalf("fresh_venv.py %s: %v", dir, err)
	}
	return strings.TrimSpace(string(out))
}

// run runs a command with an environment that names no package path, so the
// interpreter imports what its own venv holds.
func run(t *testing.T, dir, name string, args ...string) string {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "PYTHONPATH=") && !strings.HasPrefix(kv, "VIRTUAL_ENV=") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
	return string(out)
}

// pythonSource copies python/ (the package's source, without mypy's cache)
// to tmp/src, as pip is given it, and returns the copy.
func pythonSource(t *testing.T, tmp string) string {
	t.Helper()
	src := filepath.Join(tmp, "src")
	if out, err := exec.Command("cp", "-r", testutil.Path(t, "python"), src).CombinedOutput(); err != nil {
		t.Fatalf("copy python/: %v\n%s", err, out)
	}
	os.RemoveAll(filepath.Join(src, ".mypy_cache"))
	return src
}

// `pip install ./python` into a fresh venv, and a wheel built from it into
// another: each imports the installed copy, with its data, and classifies a
// fixture log from the command line.
func TestPipInstall(t *testing.T) {
	t.Parallel()
	tmp := t.TempDir()
	src := pythonSource(t, tmp)
	fixture := testutil.Path(t, "testdata", "classify", "gemini-prompt-blocked.eval")
	check := func(py, venv string) {
		t.Helper()
		where := run(t, tmp, py, "-c", "import empties, sys; from empties.vocabulary import vocabulary; vocabulary(); assert len(empties.EVALS) == 11; print(empties.__file__)")
		if !strings.HasPrefix(strings.TrimSpace(where), venv) {
			t.Errorf("imported %s, not the copy installed in %s", where, venv)
		}
		out := run(t, tmp, py, "-m", "empties", "classify", fixture)
		if !strings.Contains(out, `"class": "filtered"`) {
			t.Errorf("python -m empties classify: %s", out)
		}
	}

	v1 := filepath.Join(tmp, "venv-dir")
	py1 := freshVenv(t, v1)
	run(t, tmp, py1, "-m", "pip", "install", "--quiet", "--no-deps", "--no-build-isolation", src)
	check(py1, v1)

	wheels := filepath.Join(tmp, "wheels")
	run(t, tmp, py1, "-m", "pip", "wheel", "--quiet", "--no-deps", "--no-build-isolation", "-w", wheels, src)
	found, _ := filepath.Glob(filepath.Join(wheels, "empties-*.whl"))
	if len(found) != 1 {
		t.Fatalf("wheels: %v", found)
	}
	zr, err := zip.OpenReader(found[0])
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range zr.File {
		names = append(names, f.Name)
	}
	zr.Close()
	sort.Strings(names)
	for _, want := range []string{"empties/py.typed", "empties/_data/vocabulary.json", "empties/_data/profiles.json", "empties/scorer.py", "empties/__main__.py"} {
		if !contains(names, want) {
			t.Errorf("the wheel has no %s: %v", want, names)
		}
	}
	v2 := filepath.Join(tmp, "venv-wheel")
	py2 := freshVenv(t, v2)
	run(t, tmp, py2, "-m", "pip", "install", "--quiet", "--no-deps", found[0])
	check(py2, v2)
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
