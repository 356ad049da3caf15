package guard_test

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"empties/internal/guard"
)

// A file with no mark is written only where none is: an existing file, of
// any content, is refused and left as it was; a new one is written.
func TestFileWithoutMarkMustBeNew(t *testing.T) {
	dir := t.TempDir()
	mine := filepath.Join(dir, "result.csv")
	os.WriteFile(mine, []byte("a,b\n1,2\n"), 0o644)
	_, err := guard.OpenFiles(guard.Rules{}, guard.File{Path: mine})
	var refusal *guard.Refusal
	if !errors.As(err, &refusal) {
		t.Fatalf("an existing file: %v, want a refusal", err)
	}
	if b, _ := os.ReadFile(mine); string(b) != "a,b\n1,2\n" {
		t.Errorf("the file changed: %q", b)
	}
	fresh := filepath.Join(dir, "new.csv")
	s, err := guard.OpenFiles(guard.Rules{}, guard.File{Path: fresh})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.Write(fresh, func(w io.Writer) error { _, err := io.WriteString(w, "x\n"); return err }); err != nil {
		t.Fatal(err)
	}
	if err := s.Commit(); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(fresh); string(b) != "x\n" {
		t.Errorf("new file holds %q", b)
	}
}

// A path below a file is refused naming the file, for every kind of
// output, before anything is made (mkdir would say "not a directory").
func TestPathBelowAFile(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "notes.txt")
	os.WriteFile(file, []byte("x"), 0o644)
	below := filepath.Join(file, "sub", "out")
	_, err1 := guard.CheckDataset(below, guard.Rules{})
	err2 := guard.CheckFolder(below, "report", guard.Rules{})
	_, err3 := guard.OpenFiles(guard.Rules{}, guard.File{Path: below})
	for i, err := range []error{err1, err2, err3} {
		var refusal *guard.Refusal
		if !errors.As(err, &refusal) || !strings.Contains(err.Error(), file+" is a file, not a folder") {
			t.Errorf("check %d: %v, want a refusal naming %s as a file", i, err, file)
		}
	}
	if b, _ := os.ReadFile(file); string(b) != "x" {
		t.Error("the file changed")
	}
}

// A named pipe is made only where nothing is: an existing file and a
// planted symlink (dangling or not) are refused and left as they were, and
// the symlink's target is not made.
func TestFifoMustBeNew(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "rows")
	if err := guard.Fifo(p); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(p); err != nil || fi.Mode()&os.ModeNamedPipe == 0 || fi.Mode().Perm() != 0o600 {
		t.Fatalf("not a pipe of mode 0600: %v %v", fi, err)
	}
	if err := guard.Fifo(p); err == nil {
		t.Error("made a pipe over a pipe")
	}
	mine := filepath.Join(dir, "mine.txt")
	os.WriteFile(mine, []byte("mine"), 0o644)
	if err := guard.Fifo(mine); err == nil {
		t.Error("made a pipe over a file")
	}
	if b, _ := os.ReadFile(mine); string(b) != "mine" {
		t.Errorf("the file changed: %q", b)
	}
	target := filepath.Join(dir, "target")
	link := filepath.Join(dir, "link")
	os.Symlink(target, link)
	if err := guard.Fifo(link); err == nil {
		t.Error("made a pipe through a dangling symlink")
	}
	if _, err := os.Lstat(target); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the symlink's target was made: %v", err)
	}
}
