package guard

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// Temp is a temporary folder empties made: a fresh name (never one that
// existed, so never a user's file or a planted symlink), marked as empties'
// own and locked by its writer for as long as it lives.
type Temp struct {
	Path string
	lock *os.File
}

// TempDir makes a temporary folder in parent named prefix+"empties-tmp-"+
// random digits, after removing what an interrupted writer left there under
// the same prefix (CleanTemps). Close removes it.
func TempDir(parent, prefix string) (*Temp, error) {
	CleanTemps(parent, prefix)
	p, err := os.MkdirTemp(parent, prefix+tempInfix+"*")
	if err != nil {
		return nil, err
	}
	lock, err := os.Open(p)
	if err == nil {
		err = syscall.Flock(int(lock.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
	}
	if err == nil {
		err = writeNew(filepath.Join(p, tempMarker), []byte("a temporary folder of empties, removed when its writer ends\n"))
	}
	if err != nil {
		if lock != nil {
			lock.Close()
		}
		os.RemoveAll(p)
		return nil, err
	}
	return &Temp{Path: p, lock: lock}, nil
}

// Close removes the temporary folder and what is in it. It may be called
// more than once.
func (t *Temp) Close() error {
	if t == nil || t.lock == nil {
		return nil
	}
	err := os.RemoveAll(t.Path)
	t.lock.Close()
	t.lock = nil
	return err
}

// release forgets the folder without removing it (it was renamed into place).
func (t *Temp) release() {
	if t.lock != nil {
		t.lock.Close()
		t.lock = nil
	}
}

// CleanTemps removes the temporary folders an interrupted writer left in
// parent under prefix: a real folder (not a symlink) named
// prefix+"empties-tmp-"..., carrying empties' mark (tempMarker, or the output
// listing of one that was being renamed into place), whose writer is gone
// (its lock is free). Anything else of that name is left alone.
func CleanTemps(parent, prefix string) {
	entries, err := os.ReadDir(parent)
	if err != nil {
		return
	}
	for _, e := range entries {
		if !isTemp(parent, e, prefix) {
			continue
		}
		p := filepath.Join(parent, e.Name())
		f, err := os.Open(p)
		if err != nil {
			continue
		}
		if syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) == nil {
			os.RemoveAll(p)
		}
		f.Close()
	}
}

// isTemp reports whether the entry e of parent is a temporary folder of
// empties' under prefix: a real folder of that name carrying its mark
// (tempMarker, or the output listing of one that was being renamed into
// place).
func isTemp(parent string, e fs.DirEntry, prefix string) bool {
	if !strings.HasPrefix(e.Name(), prefix+tempInfix) || e.Type()&fs.ModeType != fs.ModeDir {
		return false
	}
	p := filepath.Join(parent, e.Name())
	return regular(filepath.Join(p, tempMarker)) || regular(filepath.Join(p, OutputMarker))
}

// liveTemps reports whether parent holds a temporary folder under prefix
// whose writer is alive.
func liveTemps(parent, prefix string) bool {
	entries, _ := os.ReadDir(parent)
	for _, e := range entries {
		if !strings.HasPrefix(e.Name(), prefix+tempInfix) || !e.IsDir() {
			continue
		}
		f, err := os.Open(filepath.Join(parent, e.Name()))
		if err != nil {
			continue
		}
		busy := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) != nil
		f.Close()
		if busy {
			return true
		}
	}
	return false
}

func regular(p string) bool {
	fi, err := os.Lstat(p)
	return err == nil && fi.Mode().IsRegular()
}

// writeNew writes a file that must not exist yet.
func writeNew(p string, data []byte) error {
	f, err := Create(p)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// Create creates a file that must not exist: O_EXCL, so an existing file or
// a symlink planted at the name (even a dangling one) is an error, never
// truncated or followed. For files a command names in a folder it made
// itself (a dataset's build folder).
func Create(p string) (*os.File, error) {
	return os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
}

// Fifo makes a named pipe (mode 0600) that must not exist: mkfifo fails on
// any existing name, a symlink planted there included, and never follows
// one. For a pipe a command names in a temporary folder it made (TempDir),
// which Close removes with it: DuckDB's COPY writes a query's rows into one
// (duck.CopySelect).
func Fifo(p string) error {
	if err := syscall.Mkfifo(p, 0o600); err != nil {
		return &os.PathError{Op: "mkfifo", Path: p, Err: err}
	}
	return nil
}

// Unlinked makes a scratch file in the system's temporary folder under a
// fresh name (pattern as os.CreateTemp takes it) and unlinks the name at
// once: the open file is the only way to it, and nothing is left behind
// however the run ends. For bytes a command reads back itself (an object
// downloaded from S3 while it is read, a CPU profile).
func Unlinked(pattern string) (*os.File, error) {
	f, err := os.CreateTemp("", pattern)
	if err != nil {
		return nil, err
	}
	if err := os.Remove(f.Name()); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}
