package pypkg_test

import (
	"archive/zip"
	"bytes"
	"context"
	"crypto/sha256"
	"debug/elf"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"empties/internal/testutil"
)

// TestMain removes the binary testutil.Binary built and the corpora's datasets.
func TestMain(m *testing.M) {
	code := m.Run()
	testutil.RemoveBinary()
	if corpora.dir != "" {
		os.RemoveAll(corpora.dir)
	}
	os.Exit(code)
}

// buildWheel builds the platform wheel as `make wheel` does: pip runs the
// package's build backend with EMPTIES_BINARY naming a built binary.
func buildWheel(t *testing.T, bin, out string) string {
	t.Helper()
	py, _ := python(t)
	src := pythonSource(t, t.TempDir())
	cmd := exec.Command(py, "-m", "pip", "wheel", "--quiet", "--no-deps", "--no-build-isolation", "-w", out, src)
	cmd.Env = append(cleanEnv(), "EMPTIES_BINARY="+bin)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("pip wheel: %v\n%s", err, b)
	}
	found, _ := filepath.Glob(filepath.Join(out, "empties-*.whl"))
	if len(found) != 1 {
		t.Fatalf("wheels in %s: %v", out, found)
	}
	return found[0]
}

// cleanEnv is the environment without the variables that would point
// Python at another copy of the package or the binary.
func cleanEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "PYTHONPATH=") && !strings.HasPrefix(kv, "VIRTUAL_ENV=") && !strings.HasPrefix(kv, "EMPTIES_BIN") {
			env = append(env, kv)
		}
	}
	return env
}

// newestVersions reads, per symbol version namespace (GLIBC, GLIBCXX, ...),
// the newest version an ELF binary references, with Go's debug/elf (the
// build backend reads them with its own ELF reader).
func newestVersions(t *testing.T, bin string) map[string]string {
	t.Helper()
	f, err := elf.Open(bin)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	syms, err := f.ImportedSymbols()
	if err != nil {
		t.Fatal(err)
	}
	newest := map[string]string{}
	for _, s := range syms {
		ns, v, ok := strings.Cut(s.Version, "_")
		if !ok || v == "" {
			continue
		}
		if cur, seen := newest[ns]; !seen || versionLess(cur, v) {
			newest[ns] = v
		}
	}
	return newest
}

func versionLess(a, b string) bool {
	pa, pb := strings.Split(a, "."), strings.Split(b, ".")
	for i := 0; i < len(pa) || i < len(pb); i++ {
		var x, y int
		if i < len(pa) {
			x, _ = strconv.Atoi(pa[i])
		}
		if i < len(pb) {
			y, _ = strconv.Atoi(pb[i])
		}
		if x != y {
			return x < y
		}
	}
	return false
}

// The platform wheel (`make wheel`): tagged for the glibc and libstdc++ the
// binary needs (auditwheel, the reference tool, agrees), holding this
// checkout's binary byte for byte with its executable bit; installed into a
// fresh venv with no Go and no C compiler on the PATH, its `empties` command
// is the binary (the same output and exit codes; exec'd, so the same process
// gets the signals: a SIGTERM stops an ingest with 130 and commits nothing),
// and `import empties` reads logs with it.
func TestWheel(t *testing.T) {
	t.Parallel()
	bin := testutil.Binary(t)
	tmp := t.TempDir()
	whl := buildWheel(t, bin, filepath.Join(tmp, "dist"))

	newest := newestVersions(t, bin)
	m := regexp.MustCompile(`^empties-[^-]+-py3-none-(manylinux_(\d+)_(\d+)_x86_64)\.whl$`).FindStringSubmatch(filepath.Base(whl))
	if m == nil {
		t.Fatalf("wheel %s: want py3-none-manylinux_2_N_x86_64", filepath.Base(whl))
	}
	tag := m[1]
	if glibc := m[2] + "." + m[3]; versionLess(glibc, newest["GLIBC"]) {
		t.Errorf("tagged %s, but the binary references GLIBC_%s", tag, newest["GLIBC"])
	}
	t.Logf("wheel %s (%d MB); the binary's newest GLIBC_ version %s, GLIBCXX_ %s, CXXABI_ %s", filepath.Base(whl), fileSize(t, whl)>>20, newest["GLIBC"], newest["GLIBCXX"], newest["CXXABI"])
	py, _ := python(t)
	cmd := exec.Command(py, "-m", "auditwheel", "show", whl)
	cmd.Env = cleanEnv()
	show, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("auditwheel show: %v\n%s", err, show)
	}
	if want := `This constrains the platform tag to "` + tag + `"`; !strings.Contains(strings.Join(strings.Fields(string(show)), " "), want) {
		t.Errorf("auditwheel does not say %q:\n%s", want, show)
	}

	zr, err := zip.OpenReader(whl)
	if err != nil {
		t.Fatal(err)
	}
	var wheelMeta string
	found := false
	for _, f := range zr.File {
		switch {
		case f.Name == "empties/_bin/empties":
			found = true
			if f.Mode()&0o111 == 0 {
				t.Errorf("the binary's mode in the wheel is %v: not executable", f.Mode())
			}
			if got, want := zipSum(t, f), fileSum(t, bin); got != want {
				t.Errorf("the wheel's binary is not the one built")
			}
		case strings.HasSuffix(f.Name, ".dist-info/WHEEL"):
			wheelMeta = zipText(t, f)
		}
	}
	zr.Close()
	if !found {
		t.Fatal("the wheel holds no empties/_bin/empties")
	}
	if !strings.Contains(wheelMeta, "Root-Is-Purelib: false") || !strings.Contains(wheelMeta, "Tag: py3-none-"+tag) {
		t.Errorf("WHEEL:\n%s", wheelMeta)
	}

	venv := filepath.Join(tmp, "venv")
	vpy := freshVenv(t, venv)
	run(t, tmp, vpy, "-m", "pip", "install", "--quiet", "--no-deps", whl)
	// Nothing but the venv on the PATH: no go, no cc.
	env := []string{"HOME=" + os.Getenv("HOME"), "PATH=" + filepath.Join(venv, "bin"), "LANG=C.UTF-8"}
	for _, tool := range []string{"go", "cc", "gcc"} {
		if _, err := lookIn(filepath.Join(venv, "bin"), tool); err == nil {
			t.Fatalf("%s is on the test's PATH", tool)
		}
	}
	command := filepath.Join(venv, "bin", "empties")
	installed := filepath.Join(sitePackages(t, venv), "empties", "_bin", "empties")
	logs := testutil.Path(t, "testdata", "classify")
	data := filepath.Join(tmp, "data")
	for _, args := range [][]string{
		{"--version"},
		{"bogus"},
		{"sql", "SELECT 1", "--data", filepath.Join(tmp, "no-such-dataset")},
		{"ingest", logs, "--out", data, "--progress", "never"},
		{"sql", "SELECT class, count(*) AS n FROM replies GROUP BY ALL ORDER BY ALL", "--data", data},
	} {
		got := runCode(t, env, command, args...)
		if args[0] == "ingest" { // a second ingest would find nothing new to read
			if got.code != 0 || !regexp.MustCompile(`ingested (\d+) of \d+ files`).MatchString(got.stdout) {
				t.Errorf("empties %v: exit %d\n%s%s", args, got.code, got.stdout, got.stderr)
			}
			continue
		}
		if want := runCode(t, env, bin, args...); got != want {
			t.Errorf("empties %v: the command gave %+v, the binary %+v", args, got, want)
		}
	}

	// Signals: the command is the binary's own process.
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute) // a hang guard
	defer cancel()
	stalled := filepath.Join(tmp, "stalled")
	c := exec.CommandContext(ctx, command, "ingest", logs, "--out", filepath.Join(tmp, "stopped"), "--progress", "never")
	c.Env = append(env, "EMPTIES_TEST_STALL_READS="+stalled, "EMPTIES_TEST_STOP_GRACE=10m")
	var stderr testutil.SyncBuffer
	c.Stderr = &stderr
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(10 * time.Minute); ; time.Sleep(20 * time.Millisecond) {
		if _, err := os.Stat(stalled); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the ingest never started")
		}
	}
	exe, err := os.Readlink(filepath.Join("/proc", strconv.Itoa(c.Process.Pid), "exe"))
	if err != nil || exe != installed {
		t.Errorf("process %d runs %q (%v), want the wheel's binary %s", c.Process.Pid, exe, err, installed)
	}
	c.Process.Signal(syscall.SIGTERM)
	err = c.Wait()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 130 {
		t.Errorf("after SIGTERM: %v, want exit code 130\n%s", err, stderr.String())
	}
	if !strings.Contains(stderr.String(), "empties: interrupted") {
		t.Errorf("stderr: %s", stderr.String())
	}
	if _, err := os.Stat(filepath.Join(tmp, "stopped", "current")); err == nil {
		t.Error("the stopped ingest committed a generation")
	}

	out := runCode(t, env, filepath.Join(venv, "bin", "python"), "-c", `
import empties, sys
df = empties.replies_df(sys.argv[1], progress=False)
assert empties.binary() == sys.argv[2], empties.binary()
print(len(df), df["class"].nunique(), str(df["started_at"].dtype))
`, logs, installed)
	if out.code != 0 || !strings.HasSuffix(strings.TrimSpace(out.stdout), "timestamp[us, tz=UTC][pyarrow]") {
		t.Errorf("replies_df from the installed wheel: exit %d\n%s%s", out.code, out.stdout, out.stderr)
	}
	t.Logf("from the wheel: replies_df rows, classes, started_at dtype: %s", strings.TrimSpace(out.stdout))
}

type ran struct {
	code           int
	stdout, stderr string
}

// runCode runs a command and returns its exit code and output, failing only
// if it could not be started.
func runCode(t *testing.T, env []string, name string, args ...string) ran {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Env = env
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	r := ran{stdout: stdout.String(), stderr: stderr.String()}
	if ee, ok := err.(*exec.ExitError); ok {
		r.code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return r
}

func lookIn(dir, name string) (string, error) {
	p := filepath.Join(dir, name)
	_, err := os.Stat(p)
	return p, err
}

func sitePackages(t *testing.T, venv string) string {
	t.Helper()
	own, err := filepath.Glob(filepath.Join(venv, "lib", "python3*", "site-packages"))
	if err != nil || len(own) != 1 {
		t.Fatalf("site-packages of %s: %v %v", venv, own, err)
	}
	return own[0]
}

func fileSize(t *testing.T, p string) int64 {
	st, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	return st.Size()
}

func fileSum(t *testing.T, p string) [32]byte {
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return sha256.Sum256(b)
}

func zipSum(t *testing.T, f *zip.File) [32]byte {
	r, err := f.Open()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	h := sha256.New()
	if _, err := io.Copy(h, r); err != nil {
		t.Fatal(err)
	}
	var s [32]byte
	copy(s[:], h.Sum(nil))
	return s
}

func zipText(t *testing.T, f *zip.File) string {
	r, err := f.Open()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	b, err := io.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
