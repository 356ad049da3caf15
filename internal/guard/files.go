package guard

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// WriteFile writes path whole or not at all, through a temporary folder
// beside it (TempDir), fsynced with its folder when sync is set. For a file
// in a folder the command owns (a dataset's marker, a file of a build
// folder); an output file a user names goes through OpenFiles.
func WriteFile(path string, sync bool, fill func(io.Writer) error) error {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	t, err := TempDir(dir, "."+base+".")
	if err != nil {
		return err
	}
	defer t.Close()
	tmp := filepath.Join(t.Path, base)
	if err := writeTemp(tmp, sync, nil, fill); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return err
	}
	if sync {
		return Sync(dir)
	}
	return nil
}

// writeTemp fills a new file, checking that it begins with mark.
func writeTemp(p string, sync bool, mark []byte, fill func(io.Writer) error) error {
	f, err := Create(p)
	if err != nil {
		return err
	}
	head := &prefix{n: len(mark)}
	bw := bufio.NewWriter(io.MultiWriter(f, head))
	err = fill(bw)
	if err == nil {
		err = bw.Flush()
	}
	if err == nil && !bytes.Equal(head.b, mark) {
		err = fmt.Errorf("internal error: the file does not begin with its mark %q", mark)
	}
	if err == nil && sync {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// prefix keeps the first n bytes written through it.
type prefix struct {
	n int
	b []byte
}

func (p *prefix) Write(b []byte) (int, error) {
	if k := p.n - len(p.b); k > 0 {
		p.b = append(p.b, b[:min(k, len(b))]...)
	}
	return len(b), nil
}

// Sync fsyncs a file or a folder (a folder's entries: a rename or a new
// name in it survives a crash once it is synced).
func Sync(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	err = f.Sync()
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// File is an output file a user names.
type File struct {
	Path string
	// Mark is what every file empties writes at Path begins with (a
	// comment line, a first JSON key): an existing file that does not
	// begin with it is not empties' and is refused. A file with no Mark
	// (data whose format has no room for one: `empties sql --output`'s
	// CSV, JSON or Parquet) must be new: an existing one is refused.
	Mark []byte
}

// Files is a set of output files opened for writing (OpenFiles).
type Files struct {
	files []outFile
	temps map[string]*Temp // folder → its temporary folder
}

type outFile struct {
	File
	target  string // resolved folder + name
	existed bool
	written bool
}

// OpenFiles checks output files before any work: each is new, or a regular
// file (not a symlink, not a folder) that begins with its mark; none meets
// a path the rules keep clear. It makes their temporary folders (removing
// what an interrupted write left). Write fills each, Commit renames them
// into place; Close (deferred) removes what Commit did not move.
func OpenFiles(r Rules, files ...File) (*Files, error) {
	s := &Files{temps: map[string]*Temp{}}
	for _, f := range files {
		o, err := checkFile(f, r)
		if err != nil {
			return nil, err
		}
		s.files = append(s.files, o)
	}
	for _, o := range s.files {
		dir := filepath.Dir(o.target)
		if s.temps[dir] != nil {
			continue
		}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			s.Close()
			return nil, err
		}
		t, err := TempDir(dir, "."+filepath.Base(o.target)+".")
		if err != nil {
			s.Close()
			return nil, err
		}
		s.temps[dir] = t
	}
	return s, nil
}

func checkFile(f File, r Rules) (outFile, error) {
	abs, err := filepath.Abs(f.Path)
	if err != nil {
		return outFile{}, err
	}
	dir, err := resolve(filepath.Dir(abs))
	if err != nil {
		return outFile{}, err
	}
	o := outFile{File: f, target: filepath.Join(dir, filepath.Base(abs))}
	if err := r.check(f.Path, o.target, false); err != nil {
		return outFile{}, err
	}
	if fi, err := os.Stat(dir); err == nil && !fi.IsDir() {
		return outFile{}, refuse(f.Path, "%s is a file, not a folder", filepath.Dir(f.Path))
	}
	fi, err := os.Lstat(o.target)
	switch {
	case os.IsNotExist(err):
		return o, nil
	case err != nil:
		return outFile{}, err
	case fi.Mode()&fs.ModeSymlink != 0:
		return outFile{}, refuse(f.Path, "is a symlink; empties writes no file through one (name the file it points to, or remove the link)")
	case fi.IsDir():
		return outFile{}, refuse(f.Path, "is a folder; name a file")
	case !fi.Mode().IsRegular():
		return outFile{}, refuse(f.Path, "is not a regular file")
	}
	if len(f.Mark) == 0 {
		return outFile{}, refuse(f.Path, "exists; empties writes this file only where none is (it cannot tell a file it wrote from yours); choose another name or move it away")
	}
	if err := hasMark(o.target, f.Mark); err != nil {
		return outFile{}, refuse(f.Path, "exists and was not written by empties (it does not begin with %q); choose another name or move it away", f.Mark)
	}
	o.existed = true
	return o, nil
}

// hasMark checks that the regular file p begins with mark.
func hasMark(p string, mark []byte) error {
	f, err := os.OpenFile(p, os.O_RDONLY|noFollow, 0)
	if err != nil {
		return err
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return errNotOurs
	}
	b := make([]byte, len(mark))
	if _, err := io.ReadFull(f, b); err != nil || !bytes.Equal(b, mark) {
		return errNotOurs
	}
	return nil
}

// Write fills the output file at path (as given to OpenFiles) in its
// temporary folder; its content must begin with its mark.
func (s *Files) Write(path string, fill func(io.Writer) error) error {
	for i := range s.files {
		o := &s.files[i]
		if o.Path != path {
			continue
		}
		tmp := filepath.Join(s.temps[filepath.Dir(o.target)].Path, filepath.Base(o.target))
		if err := writeTemp(tmp, false, o.Mark, fill); err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		o.written = true
		return nil
	}
	return fmt.Errorf("internal error: %s was not opened for writing", path)
}

// Commit moves every written file into place: a new one only if its name is
// still free, an existing one only if it still begins with its mark.
func (s *Files) Commit() error {
	for _, o := range s.files {
		if !o.written {
			continue
		}
		tmp := filepath.Join(s.temps[filepath.Dir(o.target)].Path, filepath.Base(o.target))
		if !o.existed {
			if err := renameNoReplace(tmp, o.target); err != nil {
				if os.IsExist(err) {
					return refuse(o.Path, "was created by someone else while empties ran")
				}
				return err
			}
			continue
		}
		if err := hasMark(o.target, o.Mark); err != nil {
			return refuse(o.Path, "was replaced by a file empties did not write while it ran")
		}
		if err := os.Rename(tmp, o.target); err != nil {
			return err
		}
	}
	return s.Close()
}

// Close removes the temporary folders. It may be called more than once.
func (s *Files) Close() error {
	var first error
	for dir, t := range s.temps {
		if err := t.Close(); err != nil && first == nil {
			first = err
		}
		delete(s.temps, dir)
	}
	return first
}

func renameChecked(old, new string) error {
	if _, err := os.Lstat(new); err == nil {
		return &os.LinkError{Op: "rename", Old: old, New: new, Err: fs.ErrExist}
	}
	return os.Rename(old, new)
}
