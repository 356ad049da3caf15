package testutil

import (
	"crypto/sha256"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// UserTree is a folder of a user's files (texts, a subfolder, a symlink)
// whose every path, type, mode, byte and link target is witnessed, so a
// test can show a command left them exactly as they were.
type UserTree struct {
	Dir string
	sum string
}

// NewUserTree writes a user's files into dir (made if need be) and takes
// their sum.
func NewUserTree(t testing.TB, dir string) UserTree {
	t.Helper()
	files := map[string]string{
		"notes.txt":          "my notes\n",
		"thesis/chapter1.md": "# Chapter 1\n",
		"thesis/data.csv":    "a,b\n1,2\n",
	}
	for name, body := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink("notes.txt", filepath.Join(dir, "notes-link")); err != nil {
		t.Fatal(err)
	}
	return WitnessTree(t, dir)
}

// WitnessTree takes the sum of an existing folder.
func WitnessTree(t testing.TB, dir string) UserTree {
	t.Helper()
	return UserTree{Dir: dir, sum: TreeSum(t, dir)}
}

// Check fails the test if anything under the folder changed since it was
// witnessed.
func (u UserTree) Check(t testing.TB, step string) {
	t.Helper()
	if got := TreeSum(t, u.Dir); got != u.sum {
		t.Errorf("%s: the user's files in %s changed:\nbefore:\n%s\nafter:\n%s", step, u.Dir, u.sum, got)
	}
}

// TreeSum lists every path under dir with its type, mode and content's
// SHA-256 (a symlink's target), one per line, sorted; "" for no folder.
func TreeSum(t testing.TB, dir string) string {
	t.Helper()
	var lines []string
	err := filepath.WalkDir(dir, func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		fi, err := os.Lstat(p)
		if err != nil {
			return err
		}
		line := fmt.Sprintf("%s %v", rel, fi.Mode())
		switch {
		case fi.Mode()&fs.ModeSymlink != 0:
			target, _ := os.Readlink(p)
			line += " -> " + target
		case fi.Mode().IsRegular():
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			line += fmt.Sprintf(" %x", sha256.Sum256(b))
		}
		lines = append(lines, line)
		return nil
	})
	if os.IsNotExist(err) {
		return ""
	}
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(lines)
	return strings.Join(lines, "\n")
}

// Snapshot maps every path under dir to a digest of what it is: a file's
// mode and content's SHA-256, a folder and its mode, or a symlink's target.
// No folder at dir is an empty map.
func Snapshot(t testing.TB, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		info, err := os.Lstat(p)
		if err != nil {
			return err
		}
		switch {
		case info.Mode()&os.ModeSymlink != 0:
			l, _ := os.Readlink(p)
			out[rel] = "link " + l
		case info.IsDir():
			out[rel] = "dir " + info.Mode().String()
		default:
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			out[rel] = fmt.Sprintf("%v %x", info.Mode(), sha256.Sum256(b))
		}
		return nil
	})
	if os.IsNotExist(err) && len(out) == 0 {
		return out
	}
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// SameTree fails t for every path of the Snapshot before that changed in
// after and every path that appeared, step naming when.
func SameTree(t testing.TB, step string, before, after map[string]string) {
	t.Helper()
	for p, v := range before {
		if after[p] != v {
			t.Errorf("%s: %s changed (%s → %q)", step, p, v, after[p])
		}
	}
	for p := range after {
		if _, ok := before[p]; !ok {
			t.Errorf("%s: %s appeared", step, p)
		}
	}
}
