package pypkg_test

import (
	"archive/tar"
	"archive/zip"
	"compress/gzip"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
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
	return runWith(t, dir, nil, name, args...)
}

// runWith is run with more variables in the environment.
func runWith(t *testing.T, dir string, more []string, name string, args ...string) string {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "PYTHONPATH=") && !strings.HasPrefix(kv, "VIRTUAL_ENV=") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env, more...)
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
		where := run(t, tmp, py, "-c", "import empties, sys; from empties.vocabulary import vocabulary; from empties.study import EVALS; vocabulary(); assert len(EVALS) == 11; print(empties.__file__)")
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
	before := testutil.Snapshot(t, src)
	run(t, tmp, py1, "-m", "pip", "install", "--quiet", "--no-deps", "--no-build-isolation", "--ignore-installed", src)
	check(py1, v1)
	testutil.SameTree(t, "pip install ./python", before, testutil.Snapshot(t, src))

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
	for _, want := range []string{"empties/py.typed", "empties/_data/vocabulary.json", "empties/study/_data/profiles.json", "empties/scorer.py", "empties/__main__.py"} {
		if !contains(names, want) {
			t.Errorf("the wheel has no %s: %v", want, names)
		}
	}
	v2 := filepath.Join(tmp, "venv-wheel")
	py2 := freshVenv(t, v2)
	run(t, tmp, py2, "-m", "pip", "install", "--quiet", "--no-deps", "--ignore-installed", found[0])
	check(py2, v2)
}

// The range of inspect_ai releases the package declares and is tested on:
// the oldest is pyproject's lower bound, the newest the release
// requirements.txt pins (the project venv's).
func inspectAIRange(t *testing.T) (oldest, newest string) {
	t.Helper()
	pyproject, err := os.ReadFile(testutil.Path(t, "python", "pyproject.toml"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`"inspect_ai>=([0-9.]+),<0\.4"`).FindSubmatch(pyproject)
	if m == nil {
		t.Fatal(`python/pyproject.toml: no dependency "inspect_ai>=X,<0.4"`)
	}
	reqs, err := os.ReadFile(testutil.Path(t, "requirements.txt"))
	if err != nil {
		t.Fatal(err)
	}
	pin := regexp.MustCompile(`(?m)^inspect-ai==([0-9.]+)$`).FindSubmatch(reqs)
	if pin == nil {
		t.Fatal("requirements.txt pins no inspect-ai")
	}
	return string(m[1]), string(pin[1])
}

// `python -m build` from a read-only copy of python/ (its sdist, then its
// wheel from the sdist) writes nothing into the copy, and `twine check
// --strict` passes both. Then, in a fresh venv per end of the inspect_ai range
// the package declares (the oldest, pyproject's lower bound, installed from
// PyPI through pip's cache; the newest, the release requirements.txt pins),
// the wheel installs and the sdist's own tests (with their fixture logs)
// pass against it.
func TestBuildFromAReadOnlyCopy(t *testing.T) {
	t.Parallel()
	oldest, newest := inspectAIRange(t)
	tmp := t.TempDir()
	src := pythonSource(t, tmp)
	if out, err := exec.Command("chmod", "-R", "a-w", src).CombinedOutput(); err != nil {
		t.Fatalf("chmod: %v\n%s", err, out)
	}
	before := testutil.Snapshot(t, src)
	t.Cleanup(func() { exec.Command("chmod", "-R", "u+w", src).Run() }) // so the folder can be removed
	py, _ := python(t)
	dist := filepath.Join(tmp, "dist")
	run(t, tmp, py, "-m", "build", "--no-isolation", "--outdir", dist, src)
	testutil.SameTree(t, "python -m build", before, testutil.Snapshot(t, src))
	sdists, _ := filepath.Glob(filepath.Join(dist, "empties-*.tar.gz"))
	wheels, _ := filepath.Glob(filepath.Join(dist, "empties-*.whl"))
	if len(sdists) != 1 || len(wheels) != 1 {
		t.Fatalf("built %v %v", sdists, wheels)
	}
	run(t, tmp, py, "-m", "twine", "check", "--strict", sdists[0], wheels[0])

	// what each holds: the licence, and the sdist the tests, their data and the build backend
	members := untar(t, sdists[0], filepath.Join(tmp, "sdist"))
	root := filepath.Join(tmp, "sdist", strings.TrimSuffix(filepath.Base(sdists[0]), ".tar.gz"))
	logs := 0
	for _, m := range members {
		if strings.Contains(m, "/tests/data/classify/") && strings.HasSuffix(m, ".eval") {
			logs++
		}
	}
	for _, want := range []string{"LICENSE", "pyproject.toml", "build_backend/empties_build_backend.py", "tests/conftest.py",
		"tests/test_scorer.py", "tests/data/classify/golden.tsv", "src/empties/study/_data/profiles.json"} {
		if _, err := os.Stat(filepath.Join(root, want)); err != nil {
			t.Errorf("the sdist has no %s", want)
		}
	}
	if logs < 28 {
		t.Errorf("the sdist has %d fixture logs", logs)
	}
	zr, err := zip.OpenReader(wheels[0])
	if err != nil {
		t.Fatal(err)
	}
	var metadata string
	names := map[string]bool{}
	for _, f := range zr.File {
		names[f.Name] = true
		if strings.HasSuffix(f.Name, ".dist-info/METADATA") {
			r, _ := f.Open()
			b, _ := io.ReadAll(r)
			r.Close()
			metadata = string(b)
		}
	}
	zr.Close()
	if !names["empties-0.1.0.dist-info/licenses/LICENSE"] || names["tests/conftest.py"] {
		t.Errorf("the wheel's files: %v", names)
	}
	for _, want := range []string{"License-Expression: MIT", "Requires-Python: >=3.11", "Requires-Dist: inspect_ai<0.4,>=" + oldest} {
		if !strings.Contains(metadata, "\n"+want+"\n") {
			t.Errorf("the wheel's METADATA has no %q:\n%s", want, metadata)
		}
	}
	// the sdist's tests are to read the installed wheel, not the sdist's own copy of the package
	if err := os.RemoveAll(filepath.Join(root, "src")); err != nil {
		t.Fatal(err)
	}

	for _, version := range []string{oldest, newest} {
		t.Run("inspect_ai-"+version, func(t *testing.T) {
			t.Parallel()
			dir := filepath.Join(tmp, "venv-"+version)
			vpy := freshVenv(t, dir)
			if version != newest { // the newest is the project venv's, which the fresh venv sees
				run(t, tmp, vpy, "-m", "pip", "install", "--quiet", "--no-deps", "--ignore-installed", "inspect_ai=="+version)
			}
			run(t, tmp, vpy, "-m", "pip", "install", "--quiet", "--no-deps", "--ignore-installed", wheels[0])
			got := strings.Fields(run(t, root, vpy, "-c", "import inspect_ai, empties; print(inspect_ai.__version__, empties.__file__, *empties.INSPECT_AI_TESTED)"))
			if len(got) != 4 || got[0] != version || !strings.HasPrefix(got[1], dir) || got[2] != oldest || got[3] != newest {
				t.Fatalf("in the venv of inspect_ai %s: inspect_ai, empties, INSPECT_AI_TESTED are %v (want %s, installed in %s, %s %s)", version, got, version, dir, oldest, newest)
			}
			// a copy of python/ alone builds a wheel without the binary: the
			// frames' tests run this checkout's (EMPTIES_BIN)
			out := runWith(t, root, []string{"EMPTIES_BIN=" + testutil.Binary(t)}, vpy, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-W", "ignore::DeprecationWarning", "tests")
			t.Logf("inspect_ai %s: the sdist's tests: %s", version, lastLine([]byte(out)))
		})
	}
}

// untar unpacks a .tar.gz into dir and returns its members' names.
func untar(t *testing.T, path, dir string) []string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	gz, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(gz)
	var names []string
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return names
		}
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, h.Name)
		p := filepath.Join(dir, filepath.FromSlash(h.Name))
		if !strings.HasPrefix(p, dir+string(filepath.Separator)) {
			t.Fatalf("%s: member %s outside the archive's folder", path, h.Name)
		}
		switch h.Typeflag {
		case tar.TypeDir:
			if err := os.MkdirAll(p, 0o755); err != nil {
				t.Fatal(err)
			}
		case tar.TypeReg:
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			b, err := io.ReadAll(tr)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
