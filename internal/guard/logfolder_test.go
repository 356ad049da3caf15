package guard_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
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

// The lock outlives empties: a child that inherited the lock's descriptor
// keeps the folder taken after empties has closed it, and the refusal names
// the holders as Hold recorded them.
func TestLogFolderLockIsTheWritersToo(t *testing.T) {
	out := filepath.Join(t.TempDir(), "wide")
	f, err := guard.OpenLogFolder(out, "rerun", "inspect_ai", guard.Rules{})
	if err != nil {
		t.Fatal(err)
	}
	child := exec.Command("sleep", "600")
	child.ExtraFiles = []*os.File{f.LockFile()}
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	defer child.Process.Kill()
	if err := f.Hold(guard.Holder{Command: "rerun", EmptiesPID: 999999999, WriterPID: child.Process.Pid, Writer: "runner", Started: "2026-12-03T10:00:00Z"}); err != nil {
		t.Fatal(err)
	}
	f.Close() // empties is gone; its child is not
	want := "pid 999999999, gone; its runner, pid " + strconv.Itoa(child.Process.Pid) + ", running"
	_, err = guard.OpenLogFolder(out, "rerun", "inspect_ai", guard.Rules{})
	refused(t, err, want)
	refused(t, guard.CheckLogFolderFree(out, out), "kill -INT "+strconv.Itoa(child.Process.Pid))
	child.Process.Kill()
	child.Wait()
	if err := guard.CheckLogFolderFree(out, out); err != nil {
		t.Errorf("the folder after its holders ended: %v", err)
	}
	g, err := guard.OpenLogFolder(out, "rerun", "inspect_ai", guard.Rules{})
	if err != nil {
		t.Fatalf("the folder after its holders ended: %v", err)
	}
	g.Close()
}
