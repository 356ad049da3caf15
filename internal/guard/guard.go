// Package guard is the one place empties decides whether it may write or
// remove a path. Every command that writes outside a dataset's build folder
// goes through it, and so do the dataset's own removals:
//
//   - An output folder (a report) is written only if it is new, empty, or
//     an empties output folder (its marker, OutputMarker, lists every file
//     in it: a file it does not list is the user's and the folder is
//     refused). OpenFolder checks it before any work; the content is built
//     in a temporary folder and switched in by Commit (a new folder by one
//     rename; an existing one file by file, its old files removed by their
//     listing only).
//   - An output file (select's PLAN.md and PLAN.json) is written only if it
//     is new or begins with the mark every file empties writes there begins
//     with (OpenFiles).
//   - No output is, lies inside or holds a path the command reads (Rules.
//     Avoid: its LOGS), and none is a dataset or lies deeper inside one than
//     a folder of its own at the dataset's top (DIR/report).
//   - Temporary names are made exclusively (TempDir: a fresh folder, marked
//     and locked by its writer), never a predictable name that may be a
//     user's file or a planted symlink; what an interrupted writer left is
//     removed by the next one (only folders carrying the mark, whose writer
//     is gone), and at exit by Close.
//   - Removal of a dataset's files (RemoveFile, RemoveDir) is of plain files
//     and folders inside a given root, reached without following a symlink.
package guard

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

const (
	// DatasetMarker names a folder as an empties dataset (package store
	// writes it).
	DatasetMarker = "empties-dataset.json"
	// OutputMarker is the listing an empties output folder carries: the
	// files and folders empties wrote there.
	OutputMarker = ".empties-output.json"
	// tempMarker marks a temporary folder as empties' own.
	tempMarker = ".empties-tmp"
	// tempInfix is in the name of every temporary folder.
	tempInfix = "empties-tmp-"
)

// datasetNames are the names a dataset uses at its top (see
// internal/store/dataset.go); an output at a dataset's top takes another.
var datasetNames = map[string]bool{DatasetMarker: true, "gen": true, "current": true, "empties.duckdb": true, ".lock": true}

// Rules say what an output must keep clear of besides datasets, which the
// guard finds itself by their marker.
type Rules struct {
	// Avoid are paths the command reads (its LOGS): an output is not one,
	// does not lie inside one and does not hold one. URLs are ignored.
	Avoid []string
	// Datasets are folders this command makes datasets of that may not be
	// marked yet (run's --out before its ingest): treated as datasets.
	Datasets []string
}

// Refusal is the error of a path the guard refuses; nothing was changed.
type Refusal struct {
	Path   string // as the user gave it
	Reason string
}

func (r *Refusal) Error() string {
	return r.Path + ": " + r.Reason + "; nothing was changed"
}

func refuse(path, format string, args ...any) error {
	return &Refusal{Path: path, Reason: fmt.Sprintf(format, args...)}
}

// resolve returns the absolute path of p with the symlinks of its existing
// part resolved (the last element too, if it exists), so rules compare the
// places paths reach, not their spellings.
func resolve(p string) (string, error) {
	abs, err := filepath.Abs(p)
	if err != nil {
		return "", err
	}
	head, rest := abs, []string{}
	for {
		if _, err := os.Lstat(head); err == nil {
			break
		}
		parent := filepath.Dir(head)
		if parent == head {
			break
		}
		rest = append([]string{filepath.Base(head)}, rest...)
		head = parent
	}
	real, err := filepath.EvalSymlinks(head)
	if err != nil {
		if fi, lerr := os.Lstat(head); lerr == nil && fi.Mode()&fs.ModeSymlink != 0 {
			t, _ := os.Readlink(head)
			return "", refuse(p, "%s is a symlink to %s, which does not exist", head, t)
		}
		return "", err
	}
	if len(rest) > 0 {
		if fi, err := os.Stat(real); err == nil && !fi.IsDir() {
			return "", refuse(p, "%s is a file, not a folder", head)
		}
	}
	return filepath.Join(append([]string{real}, rest...)...), nil
}

// within reports whether p lies strictly inside dir (both resolved).
func within(p, dir string) bool {
	rel, err := filepath.Rel(dir, p)
	return err == nil && rel != "." && filepath.IsLocal(rel)
}

// isDataset reports whether the folder dir is a dataset.
func isDataset(dir string, extra []string) bool {
	for _, d := range extra {
		if d == dir {
			return true
		}
	}
	fi, err := os.Lstat(filepath.Join(dir, DatasetMarker))
	return err == nil && fi.Mode().IsRegular()
}

// check applies the rules to the output path p (resolved: real). A dataset
// may be the output itself only when dataset is true (store.Create).
func (r Rules) check(p, real string, dataset bool) error {
	if filepath.Dir(real) == real {
		return refuse(p, "is the root of the file system")
	}
	for _, a := range r.Avoid {
		if a == "" || strings.Contains(a, "://") {
			continue
		}
		ra, err := resolve(a)
		if err != nil {
			continue
		}
		switch {
		case ra == real:
			return refuse(p, "is %s, which this command reads; write to a new folder", a)
		case within(real, ra):
			return refuse(p, "lies inside %s, which this command reads; write outside it", a)
		case within(ra, real):
			return refuse(p, "holds %s, which this command reads; write to a new folder", a)
		}
	}
	var extra []string
	for _, d := range r.Datasets {
		if rd, err := resolve(d); err == nil {
			extra = append(extra, rd)
		}
	}
	for q := real; ; q = filepath.Dir(q) {
		if isDataset(q, extra) {
			switch {
			case q == real && dataset:
			case q == real:
				return refuse(p, "is an empties dataset; write the output to a new folder, e.g. %s", filepath.Join(p, "report"))
			case filepath.Dir(real) == q && !datasetNames[filepath.Base(real)] && !strings.HasPrefix(filepath.Base(real), "."):
				// a folder of its own at the dataset's top, e.g. DIR/report
			default:
				return refuse(p, "lies inside the empties dataset %s, whose files only its stages write; write to a new folder, e.g. %s", q, filepath.Join(q, "report"))
			}
			break
		}
		if filepath.Dir(q) == q {
			break
		}
	}
	return nil
}

// CheckDataset applies the rules to a dataset folder a command writes
// (store.Create): it may be a dataset, but not lie inside another deeper
// than its top, nor meet a path in r.Avoid. It returns the resolved path.
func CheckDataset(dir string, r Rules) (string, error) {
	real, err := resolve(dir)
	if err != nil {
		return "", err
	}
	if fi, err := os.Stat(real); err == nil && !fi.IsDir() {
		return "", refuse(dir, "is a file, not a folder")
	}
	return real, r.check(dir, real, true)
}

var errNotOurs = errors.New("not empties' own")
