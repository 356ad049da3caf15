package ingest

import (
	"bytes"
	"empties/internal/cliutil"
	"empties/internal/evallog"
	"empties/internal/logset"
	"empties/internal/store"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"syscall"
)

// Skipped is a file ingest found and did not read, with why; the summary
// names every one.
type Skipped struct {
	Path   string
	Reason string
}

// Discover expands files and folders (recursively) into log files, sorted and
// de-duplicated, and names every file it found and does not read, with why.
//
// A folder gives every .eval file and every .json file that opens like an
// Inspect log (logset's names); dot folders, <name>.checkpoints folders and
// empties datasets below it are left out, silently. A folder named may be a
// link to one; links to folders below it are not followed (as inspect_ai's
// list_eval_logs does not follow them; ingest names those whose folder lies
// outside the folders named, NotFollowed). A folder that
// cannot be read is skipped, named, and the rest is read.
//
// A file named is taken whatever its name (the reader tells a log by its
// bytes), so a bad log is reported rather than skipped, except a .json file
// that does not open like a log at all: naming one is a usage error, before
// any dataset is made (in a folder it is skipped with a note), as is naming
// a path that does not exist or cannot be looked at, or an empties dataset.
//
// Whatever is not a regular file (a FIFO, socket or device, found or named,
// or what a link points to) is skipped unopened: an open would block, or
// read forever; a link that cannot be followed (to nothing, a loop) is
// skipped. TestDiscoverEveryShape holds it on a tree of every shape, and
// TestDiscoveryEqualsPython holds the Python package's listing
// (python/src/empties/discover.py, python -m empties classify's) equal to it.
// The bench's floor (scripts/bench/floor) lists its inputs with it too, so
// that it reads exactly the files ingest reads.
func Discover(paths []string) (files []string, skipped []Skipped, err error) {
	files, skipped, _, err = discover(paths)
	return files, skipped, err
}

// discover is Discover, and the links to folders below the folders named
// that it did not follow and whose folder lies outside every folder named
// (their logs are not read: the summary names them); a link to a folder
// the walk reads anyway (latest -> run-3) is not among them, nor one whose
// name a walk leaves out (dot and .checkpoints names).
func discover(paths []string) (files []string, skipped []Skipped, unfollowed []string, err error) {
	var links, roots []string
	seen := map[string]bool{}
	add := func(p string) error {
		abs, err := filepath.Abs(p)
		if err != nil {
			return err
		}
		if !seen[abs] {
			seen[abs] = true
			files = append(files, abs)
		}
		return nil
	}
	skip := func(p, reason string) {
		abs, _ := filepath.Abs(p)
		if !seen[abs] {
			seen[abs] = true
			skipped = append(skipped, Skipped{abs, reason})
		}
	}
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil, nil, nil, cliutil.Usagef("ingest: %s: no such file or folder", p)
			}
			return nil, nil, nil, cliutil.Usagef("ingest: %s: cannot be read (%s)", p, errText(err))
		}
		if !st.IsDir() {
			if !st.Mode().IsRegular() {
				skip(p, evallog.NotRegular(st.Mode()))
				continue
			}
			if strings.HasSuffix(p, logset.JSONSuffix) {
				if why := notALog(p); why != "" {
					return nil, nil, nil, cliutil.Usagef("ingest: %s: %s; leave it out of LOGS (a folder holding it skips it with a note)", p, why)
				}
			}
			if err := add(p); err != nil {
				return nil, nil, nil, err
			}
			continue
		}
		// A path named is followed where it is a link to a folder (os.Stat
		// above followed it), as the user meant; WalkDir would take it for
		// a file and list nothing, so it walks "p/", which the system
		// resolves. Below it, links to folders are not followed.
		root := p
		if lst, err := os.Lstat(p); err == nil && lst.Mode()&fs.ModeSymlink != 0 {
			root = p + string(filepath.Separator)
		}
		if isDataset(p) {
			return nil, nil, nil, cliutil.Usagef("ingest: %s is an empties dataset, not a folder of logs; name the logs it was ingested from", p)
		}
		if real, err := realPath(p); err == nil {
			roots = append(roots, real)
		}
		err = filepath.WalkDir(root, func(q string, e fs.DirEntry, err error) error {
			if err != nil {
				if e != nil && e.IsDir() {
					// WalkDir calls again for a folder it could not read
					// (no permission): named, and the walk goes on.
					skip(q, "a folder that cannot be read ("+errText(err)+")")
					return filepath.SkipDir
				}
				return err
			}
			name := e.Name()
			if e.IsDir() {
				// An empties dataset (an ingest's --out inside the logs
				// folder) holds no logs: left out, silently.
				if q != root && (logset.SkipDir(name) || isDataset(q)) {
					return filepath.SkipDir
				}
				return nil
			}
			isEval, isJSON := logset.LogName(name)
			if !isEval && !isJSON {
				if e.Type()&fs.ModeSymlink != 0 && !logset.SkipDir(name) {
					if st, err := os.Stat(q); err == nil && st.IsDir() && !isDataset(q) {
						links = append(links, q)
					}
				}
				return nil
			}
			if !e.Type().IsRegular() {
				st, err := os.Stat(q) // a link is taken for what it points to
				switch {
				case err != nil && e.Type()&fs.ModeSymlink != 0:
					skip(q, "a symbolic link that cannot be followed ("+errText(err)+")")
					return nil
				case err != nil:
					skip(q, "cannot be read ("+errText(err)+")")
					return nil
				case !st.Mode().IsRegular():
					skip(q, evallog.NotRegular(st.Mode()))
					return nil
				}
			}
			if isJSON {
				if why := notALog(q); why != "" {
					skip(q, why)
					return nil
				}
			}
			return add(q)
		})
		if err != nil {
			return nil, nil, nil, fmt.Errorf("listing %s: %w", p, err)
		}
	}
	sort.Strings(files)
	sort.Slice(skipped, func(i, j int) bool { return skipped[i].Path < skipped[j].Path })
	return files, skipped, outside(links, roots), nil
}

// outside is the links whose folder lies in none of roots (each a folder
// named, its links resolved), as absolute paths, sorted and once each.
func outside(links, roots []string) []string {
	var out []string
	for _, l := range links {
		real, err := realPath(l)
		if err != nil {
			continue
		}
		in := false
		for _, r := range roots {
			rel, err := filepath.Rel(r, real)
			in = in || err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
		}
		if abs, err := filepath.Abs(l); err == nil && !in {
			out = append(out, abs)
		}
	}
	sort.Strings(out)
	return slices.Compact(out)
}

// realPath is p absolute, every link in it resolved.
func realPath(p string) (string, error) {
	abs, err := filepath.Abs(p)
	if err != nil {
		return "", err
	}
	return filepath.EvalSymlinks(abs)
}

// NotFollowed is the line that names a link to a folder not followed, in
// ingest's summary and in its refusal when no log was found.
func NotFollowed(link string) string {
	return fmt.Sprintf("not followed: %s, a link to a folder outside the folders named (inspect_ai's listing does not follow it either); name it to read the logs in it", link)
}

// errText is the system's words for why err happened ("permission denied"),
// without the path, which the message names already.
func errText(err error) string {
	var errno syscall.Errno
	if errors.As(err, &errno) {
		return errno.Error()
	}
	return err.Error()
}

// isDataset reports whether dir is an empties dataset (it holds the
// marker store.Create writes).
func isDataset(dir string) bool {
	_, err := os.Stat(filepath.Join(dir, store.MarkerFile))
	return err == nil
}

// The rules of a folder's listing, local or in a bucket (remote.go): the
// names are logset's (logset.SkipDir, logset.LogName), which the Python
// package reads from the exported vocabulary (TestShippedData holds the
// shipped copy fresh); the behaviour around them (FIFOs, links, datasets,
// unreadable folders, files named directly) is held equal to the Python
// package's listing by TestDiscoveryEqualsPython.

// whyNotALog says why a .json file of size bytes is not read as a log, or
// "" if it opens like one; head returns its first logset.JSONHeadBytes
// bytes (an error: it is read, for ingest to report the error).
func whyNotALog(size int64, head func() ([]byte, error)) string {
	if size == 0 {
		return "an empty .json file, not an Inspect log"
	}
	b, err := head()
	if err != nil {
		return "" // let ingest report the error
	}
	if !opensLikeLog(b) {
		return "a .json file that is not an Inspect log (it does not open like one)"
	}
	return ""
}

// notALog is whyNotALog for a local .json file. Its head is read through
// evallog.OpenRegular, which neither waits on a FIFO put where the file was
// nor reads one.
func notALog(p string) string {
	size := int64(-1)
	if st, err := os.Stat(p); err == nil {
		size = st.Size()
	}
	return whyNotALog(size, func() ([]byte, error) {
		f, _, err := evallog.OpenRegular(p)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		buf := make([]byte, logset.JSONHeadBytes)
		n, _ := f.Read(buf)
		return buf[:n], nil
	})
}

// opensLikeLog reports whether a JSON file's first bytes open like an
// EvalLog: an object whose first key is one the writer puts first
// (logset.JSONFirstKeys).
func opensLikeLog(head []byte) bool {
	b := bytes.TrimLeft(head, " \t\r\n\xef\xbb\xbf")
	if len(b) == 0 || b[0] != '{' {
		return false
	}
	b = bytes.TrimLeft(b[1:], " \t\r\n")
	for _, k := range logset.JSONFirstKeys {
		if bytes.HasPrefix(b, []byte(`"`+k+`"`)) {
			return true
		}
	}
	return false
}

// Fingerprint is what tells, without reading a file, whether the dataset
// holds its rows as they are now: where it is, its size and modification
// time (microseconds, as logs.modified stores it), and for an object store
// the ETag its listing gives ("" for a local file). A stored fingerprint
// that matches means unchanged; one that does not is settled by the
// content (incremental.go).
type Fingerprint struct {
	Path    string
	Size    int64
	ModTime int64 // microseconds since the epoch
	ETag    string
}

// fingerprints stats the files Discover found. A file that cannot be
// stat'ed any more gets a zero fingerprint, so it is read (and its error
// reported) like any other.
func fingerprints(files []string) []Fingerprint {
	out := make([]Fingerprint, len(files))
	for i, p := range files {
		out[i].Path = p
		if st, err := os.Stat(p); err == nil {
			out[i].Size, out[i].ModTime = st.Size(), st.ModTime().UnixMicro()
		}
	}
	return out
}
