package guard_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"empties/internal/guard"
	"empties/internal/testutil"
)

// Names from a plan or a manifest are data, never paths: every form that
// could reach outside the folder it is joined to is refused, and the names
// the study uses pass.
func TestNames(t *testing.T) {
	for _, ok := range []string{"xstest_safe", "gpt-5-mini", "claude-sonnet-5", "gemini-3.7-flash", "hle_text-2", "_x"} {
		if err := guard.CheckName(ok); err != nil {
			t.Errorf("%q: %v", ok, err)
		}
	}
	for _, ok := range []string{"gpt-5-mini/openai-responses", "inspect_evals/xstest", "root"} {
		if err := guard.CheckNames(ok); err != nil {
			t.Errorf("%q: %v", ok, err)
		}
	}
	for _, bad := range []string{"", ".", "..", "../../victim", "/etc", "a/b", "a b", ".empties-logs", "-rf", "x\x00y", "é", strings.Repeat("a", guard.MaxName+1)} {
		if err := guard.CheckName(bad); err == nil {
			t.Errorf("name %q passed", bad)
		}
	}
	for _, bad := range []string{"", "/abs/olute", "a//b", "a/", "../x", "a/../../b", "a/./b", "inspect_evals/../x.py"} {
		if err := guard.CheckNames(bad); err == nil {
			t.Errorf("name %q passed", bad)
		}
	}
}

// A group's folder is proved to lie inside the log folder as it is on disk:
// a symlink planted on the way to elsewhere is refused and nothing is made
// outside; a plain path inside is made.
func TestSubFolderStaysInside(t *testing.T) {
	base := t.TempDir()
	victim := testutil.NewUserTree(t, filepath.Join(base, "victim"))
	f, err := guard.OpenLogFolder(filepath.Join(base, "plans", "wide"), "rerun", "inspect_ai", guard.Rules{})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := os.Symlink(victim.Dir, filepath.Join(f.Path(), "xstest_safe")); err != nil {
		t.Fatal(err)
	}
	for _, rel := range []string{"xstest_safe/gpt-5-mini-openai-responses", "xstest_safe", "../victim", "/etc"} {
		_, err := f.Sub(rel)
		refused(t, err, "")
	}
	victim.Check(t, "a symlinked group folder")
	p, err := f.Sub("hle_text/gpt-5-mini-openai-responses")
	if err != nil || !isDir(p) || filepath.Dir(filepath.Dir(p)) != f.Path() {
		t.Errorf("a group folder inside: %s, %v", p, err)
	}
}

func isDir(p string) bool {
	fi, err := os.Lstat(p)
	return err == nil && fi.IsDir()
}
