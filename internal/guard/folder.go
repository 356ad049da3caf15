package guard

import (
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"syscall"
)

// listing is the content of OutputMarker.
type listing struct {
	Format  string   `json:"format"` // "empties output"
	Command string   `json:"command"`
	Files   []string `json:"files"` // slash paths relative to the folder, sorted
	Dirs    []string `json:"dirs"`
}

const listingFormat = "empties output"

// Folder is an output folder opened for writing (OpenFolder).
type Folder struct {
	path    string // as given
	real    string // resolved
	command string
	old     *listing // the folder's listing; nil for a new folder
	lock    *os.File // the existing folder, flocked while it is written
	tmp     *Temp    // where the new content is built
}

// OpenFolder checks the output folder path for command (e.g. "report")
// before any work and makes the temporary folder the new content is built
// in (Dir). The folder must be new, empty, or an output folder of the same
// command whose listing names every file in it; it must not be a dataset,
// lie inside one (a folder at a dataset's top, DIR/report, is fine) or meet
// a path of r.Avoid. A symlink is followed and its target checked. Close
// (deferred) removes the temporary folder if Commit or Merge did not run.
func OpenFolder(path, command string, r Rules) (*Folder, error) {
	if path == "" {
		return nil, fmt.Errorf("%s: no output folder given", command)
	}
	real, err := resolve(path)
	if err != nil {
		return nil, err
	}
	if err := r.check(path, real, false); err != nil {
		return nil, err
	}
	f := &Folder{path: path, real: real, command: command}
	parent, base := filepath.Dir(real), filepath.Base(real)
	fi, err := os.Stat(real)
	switch {
	case os.IsNotExist(err):
		if liveTemps(parent, "."+base+".") {
			return nil, refuse(path, "is being written by another empties process")
		}
		if err := os.MkdirAll(parent, 0o755); err != nil {
			return nil, err
		}
		if f.tmp, err = TempDir(parent, "."+base+"."); err != nil {
			return nil, err
		}
		return f, nil
	case err != nil:
		return nil, err
	case !fi.IsDir():
		return nil, refuse(path, "is a file, not a folder")
	}
	f.lock, err = os.Open(real)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.lock.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil || liveTemps(parent, "."+base+".") {
		f.lock.Close()
		return nil, refuse(path, "is being written by another empties process")
	}
	CleanTemps(real, ".")
	if f.old, err = readListing(path, real, command); err != nil {
		f.lock.Close()
		return nil, err
	}
	if f.tmp, err = TempDir(real, "."); err != nil {
		f.lock.Close()
		return nil, err
	}
	return f, nil
}

// CheckFolder makes OpenFolder's checks and nothing else: for a command
// that writes the folder at the end of a longer run (run's report), to
// refuse before any work. OpenFolder checks again when it opens it.
func CheckFolder(path, command string, r Rules) error {
	if path == "" {
		return fmt.Errorf("%s: no output folder given", command)
	}
	real, err := resolve(path)
	if err != nil {
		return err
	}
	if err := r.check(path, real, false); err != nil {
		return err
	}
	fi, err := os.Stat(real)
	switch {
	case os.IsNotExist(err):
		return nil
	case err != nil:
		return err
	case !fi.IsDir():
		return refuse(path, "is a file, not a folder")
	}
	_, err = readListing(path, real, command)
	return err
}

// readListing reads the listing of an existing folder and checks that it
// names every file in it; an empty folder has an empty listing.
func readListing(path, real, command string) (*listing, error) {
	b, err := os.ReadFile(filepath.Join(real, OutputMarker))
	if os.IsNotExist(err) {
		entries, err := os.ReadDir(real)
		if err != nil {
			return nil, err
		}
		entries = slices.DeleteFunc(entries, func(e fs.DirEntry) bool { return isTemp(real, e, ".") })
		if len(entries) == 0 {
			return &listing{Format: listingFormat, Command: command}, nil
		}
		var names []string
		for _, e := range entries[:min(3, len(entries))] {
			names = append(names, e.Name())
		}
		if len(entries) > 3 {
			names = append(names, "...")
		}
		return nil, refuse(path, "holds files empties did not write (%s; no %s); write to a new or empty folder (an earlier empties %s there, of a version that did not list its files, you may remove yourself)", strings.Join(names, ", "), OutputMarker, command)
	}
	if err != nil {
		return nil, err
	}
	var l listing
	if err := json.Unmarshal(b, &l); err != nil || l.Format != listingFormat {
		return nil, refuse(path, "%s is not an empties output listing", OutputMarker)
	}
	if l.Command != command {
		return nil, refuse(path, "holds the output of `empties %s`, not of %s; write to another folder", l.Command, command)
	}
	listed := map[string]bool{}
	for _, n := range l.Files {
		listed[n] = true
	}
	var other []string
	err = filepath.WalkDir(real, func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(real, p)
		rel = filepath.ToSlash(rel)
		if filepath.Dir(p) == real && isTemp(real, e, ".") {
			return filepath.SkipDir // a temporary folder of empties' (CleanTemps)
		}
		switch {
		case rel == "." || rel == OutputMarker || e.IsDir():
		case !listed[rel] || !e.Type().IsRegular():
			other = append(other, rel)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(other) > 0 {
		sort.Strings(other)
		if len(other) > 3 {
			other = append(other[:3], "...")
		}
		return nil, refuse(path, "holds files empties did not write (%s, not in its %s); move them away or write to another folder", strings.Join(other, ", "), OutputMarker)
	}
	return &l, nil
}

// Path is the output folder, resolved.
func (f *Folder) Path() string { return f.real }

// Dir is the temporary folder to build the new content in.
func (f *Folder) Dir() string { return f.tmp.Path }

// Commit makes the content built in Dir the folder's whole content: a new
// folder is renamed into place in one step; an existing one gets the new
// files one by one (each whole), then loses the listed files the new content
// lacks. The listing names, at every moment, every file empties put there,
// so an interrupted Commit leaves nothing the next one cannot tell as its
// own.
func (f *Folder) Commit() error { return f.commit(true) }

// Merge adds the files built in Dir to the folder, replacing listed files
// of the same names and keeping the others (sample's review files, one
// pair per seed).
func (f *Folder) Merge() error { return f.commit(false) }

func (f *Folder) commit(replace bool) error {
	files, dirs, err := contents(f.tmp.Path)
	if err != nil {
		return err
	}
	if f.old == nil {
		l := listing{Format: listingFormat, Command: f.command, Files: files, Dirs: dirs}
		if err := writeListing(f.tmp.Path, filepath.Join(f.tmp.Path, OutputMarker), l); err != nil {
			return err
		}
		if err := os.Remove(filepath.Join(f.tmp.Path, tempMarker)); err != nil {
			return err
		}
		if err := os.Chmod(f.tmp.Path, 0o755); err != nil {
			return err
		}
		if err := renameNoReplace(f.tmp.Path, f.real); err != nil {
			if os.IsExist(err) {
				return refuse(f.path, "was created by someone else while empties ran")
			}
			return err
		}
		f.tmp.release()
		return nil
	}
	all := listing{Format: listingFormat, Command: f.command, Files: union(f.old.Files, files), Dirs: union(f.old.Dirs, dirs)}
	marker := filepath.Join(f.real, OutputMarker)
	if err := writeListing(f.tmp.Path, marker, all); err != nil {
		return err
	}
	final := all
	if replace {
		final = listing{Format: listingFormat, Command: f.command, Files: files, Dirs: dirs}
		for _, n := range f.old.Files {
			if !slices.Contains(files, n) {
				removeRegular(filepath.Join(f.real, filepath.FromSlash(n)))
			}
		}
		old := slices.Clone(f.old.Dirs)
		sort.Sort(sort.Reverse(sort.StringSlice(old))) // children first
		for _, n := range old {
			if !slices.Contains(dirs, n) {
				os.Remove(filepath.Join(f.real, filepath.FromSlash(n))) // only if empty
			}
		}
	}
	for _, d := range dirs {
		p := filepath.Join(f.real, filepath.FromSlash(d))
		if err := os.Mkdir(p, 0o755); err != nil {
			if fi, serr := os.Lstat(p); serr != nil || !fi.IsDir() {
				return fmt.Errorf("%s: %w", f.path, err)
			}
		}
	}
	for _, n := range files {
		if err := os.Rename(filepath.Join(f.tmp.Path, filepath.FromSlash(n)), filepath.Join(f.real, filepath.FromSlash(n))); err != nil {
			return err
		}
	}
	if err := writeListing(f.tmp.Path, marker, final); err != nil {
		return err
	}
	return f.Close()
}

// removeRegular removes p if it is a regular file (a listed name the user
// turned into something else is left).
func removeRegular(p string) {
	if regular(p) {
		os.Remove(p)
	}
}

// contents lists the files and folders under root (slash paths, sorted),
// leaving out its temporary mark.
func contents(root string) (files, dirs []string, err error) {
	err = filepath.WalkDir(root, func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		switch {
		case rel == "." || rel == tempMarker:
		case e.IsDir():
			dirs = append(dirs, rel)
		case e.Type().IsRegular():
			files = append(files, rel)
		default:
			return fmt.Errorf("%s: not a regular file", p)
		}
		return nil
	})
	return files, dirs, err
}

// writeListing writes a listing to dst through a new file in the
// temporary folder tmp.
func writeListing(tmp, dst string, l listing) error {
	b, err := json.MarshalIndent(l, "", "  ")
	if err != nil {
		return err
	}
	p := filepath.Join(tmp, ".listing-"+filepath.Base(dst))
	os.Remove(p)
	if err := writeTemp(p, false, nil, func(w io.Writer) error { _, err := w.Write(append(b, '\n')); return err }); err != nil {
		return err
	}
	return os.Rename(p, dst)
}

func union(a, b []string) []string {
	out := slices.Clone(a)
	for _, s := range b {
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	sort.Strings(out)
	return out
}

// Close removes the temporary folder (if Commit did not move it) and
// releases the folder. It may be called more than once.
func (f *Folder) Close() error {
	err := f.tmp.Close()
	if f.lock != nil {
		f.lock.Close()
		f.lock = nil
	}
	return err
}
