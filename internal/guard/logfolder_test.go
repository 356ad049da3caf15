package guard_test

import (
	"os"
	"path/filepath"
	"testing"

	"empties/internal/guard"
	"empties/internal/testutil"
)

// A log folder for rerun: new or empty folders are marked and locked, the
// same command reopens its own, and a user's folder, another command's, a
// file, a dataset and the inside of one are refused with nothing changed.
func TestLogFolder(t *testing.T) {
	base := t.TempDir()
	out := filepath.Join(base, "plans", "wide")
	f, err := guard.OpenLogFolder(out, "rerun", "inspect_ai", guard.Rules{})
	if err != nil {
		t.Fatal(err)
	}
	if !regularFile(filepath.Join(out, guard.LogFolderMarker)) {
		t.Fatal("no marker in a new log folder")
	}
	// locked while open
	if _, err := guard.OpenLogFolder(out, "rerun", "inspect_ai", guard.Rules{}); err == nil {
		t.Error("a log folder open in another writer was opened again")
	} else {
		refused(t, err, "another empties process")
	}
	// the writer fills it; the same command takes it again once it is closed
	os.MkdirAll(filepath.Join(out, "xstest_safe"), 0o755)
	os.WriteFile(filepath.Join(out, "xstest_safe", "2026-12-01T10-00-00_xstest_abc.eval"), []byte("zip"), 0o644)
	f.Close()
	f.Close()
	g, err := guard.OpenLogFolder(out, "rerun", "inspect_ai", guard.Rules{})
	if err != nil {
		t.Fatalf("reopening its own log folder: %v", err)
	}
	g.Close()
	if _, _, err := guard.CheckLogFolder(out, "report", guard.Rules{}); err == nil {
		t.Error("another command took rerun's log folder")
	} else {
		refused(t, err, "`empties rerun`")
	}

	empty := filepath.Join(base, "empty")
	os.Mkdir(empty, 0o755)
	if f, err := guard.OpenLogFolder(empty, "rerun", "inspect_ai", guard.Rules{}); err != nil {
		t.Errorf("an empty folder: %v", err)
	} else {
		f.Close()
	}

	user := testutil.NewUserTree(t, filepath.Join(base, "mine"))
	file := filepath.Join(base, "notes.txt")
	os.WriteFile(file, []byte("mine\n"), 0o644)
	ds := filepath.Join(base, "ds")
	os.Mkdir(ds, 0o755)
	os.WriteFile(filepath.Join(ds, guard.DatasetMarker), []byte("{}"), 0o644)
	logs := filepath.Join(base, "logs")
	os.Mkdir(logs, 0o755)
	whole := testutil.WitnessTree(t, base)
	for _, c := range []struct{ path, want string }{
		{user.Dir, "holds files empties did not put there"},
		{file, "is a file"},
		{ds, "is an empties dataset"},
		{filepath.Join(ds, "gen", "x"), "lies inside the empties dataset"},
		{filepath.Join(logs, "wide"), "lies inside " + logs},
	} {
		_, err := guard.OpenLogFolder(c.path, "rerun", "inspect_ai", guard.Rules{Avoid: []string{logs}})
		refused(t, err, c.want)
	}
	whole.Check(t, "refused log folders")
	user.Check(t, "a user's folder given as the log folder")
	// a folder of its own at a dataset's top is allowed
	if f, err := guard.OpenLogFolder(filepath.Join(ds, "reruns"), "rerun", "inspect_ai", guard.Rules{}); err != nil {
		t.Errorf("DIR/reruns: %v", err)
	} else {
		f.Close()
	}
}

func regularFile(p string) bool {
	fi, err := os.Lstat(p)
	return err == nil && fi.Mode().IsRegular()
}
