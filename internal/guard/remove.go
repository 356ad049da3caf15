package guard

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"
)

// Inside checks that rel names a plain file inside the folder root: a local
// path (no "..", not absolute, already clean) reached from root through real
// folders only (no symlink on the way, root included), ending at a regular
// file. For the file names a dataset's generation.json lists, which may come
// from someone else's dataset.
func Inside(root, rel string) error {
	dir, _, err := plainFile(root, rel, "")
	if err != nil {
		return err
	}
	unix.Close(dir)
	return nil
}

// RemoveFile removes root/rel if it is a plain file inside root (Inside),
// without following a symlink at any step.
func RemoveFile(root, rel string) error {
	dir, name, err := plainFile(root, rel, "; left as it is")
	if err != nil {
		return err
	}
	defer unix.Close(dir)
	if err := unix.Unlinkat(dir, name, 0); err != nil {
		return fmt.Errorf("%s: %w", filepath.Join(root, rel), err)
	}
	return nil
}

// RemoveLink removes root/rel if it is a symlink inside root (one a command
// made, such as a dataset's .current-<n>), without following it or any
// symlink on the way; a file or folder of anyone's there is left as it is,
// with an error. A missing root/rel is fs.ErrNotExist.
func RemoveLink(root, rel string) error {
	dir, name, err := walkTo(root, rel)
	if err != nil {
		return err
	}
	defer unix.Close(dir)
	var st unix.Stat_t
	if err := unix.Fstatat(dir, name, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		return fmt.Errorf("%s: %w", filepath.Join(root, rel), err)
	}
	if st.Mode&unix.S_IFMT != unix.S_IFLNK {
		return fmt.Errorf("%s is not a symbolic link; left as it is", filepath.Join(root, rel))
	}
	if err := unix.Unlinkat(dir, name, 0); err != nil {
		return fmt.Errorf("%s: %w", filepath.Join(root, rel), err)
	}
	return nil
}

// ReplaceFile puts the file with (one a command wrote in a temporary folder
// of its own, TempDir) in the place of root/rel in one rename, if root/rel is
// a plain file inside root (Inside): a symlink or folder planted there is
// left as it is, and nothing is followed on the way.
func ReplaceFile(root, rel, with string) error {
	dir, name, err := plainFile(root, rel, "; left as it is")
	if err != nil {
		return err
	}
	defer unix.Close(dir)
	if err := unix.Renameat(unix.AT_FDCWD, with, dir, name); err != nil {
		return fmt.Errorf("%s: %w", filepath.Join(root, rel), err)
	}
	return nil
}

// plainFile opens the folder holding root/rel as walkTo does and checks,
// without following a symlink, that rel's last element is a regular file
// there; it returns the folder's descriptor (the caller closes it) and the
// element. notPlain ends the error for anything else.
func plainFile(root, rel, notPlain string) (int, string, error) {
	dir, name, err := walkTo(root, rel)
	if err != nil {
		return -1, "", err
	}
	var st unix.Stat_t
	if err := unix.Fstatat(dir, name, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		unix.Close(dir)
		return -1, "", fmt.Errorf("%s: %w", filepath.Join(root, rel), err)
	}
	if st.Mode&unix.S_IFMT != unix.S_IFREG {
		unix.Close(dir)
		return -1, "", fmt.Errorf("%s is not a plain file%s", filepath.Join(root, rel), notPlain)
	}
	return dir, name, nil
}

// RemoveDir removes the folder root/rel if it is empty and a real folder
// inside root (rel "." is root itself).
func RemoveDir(root, rel string) error {
	if rel == "." {
		fi, err := os.Lstat(root)
		if err != nil {
			return err
		}
		if !fi.IsDir() {
			return fmt.Errorf("%s is not a folder; left as it is", root)
		}
		return os.Remove(root)
	}
	dir, name, err := walkTo(root, rel)
	if err != nil {
		return err
	}
	defer unix.Close(dir)
	if err := unix.Unlinkat(dir, name, unix.AT_REMOVEDIR); err != nil {
		return fmt.Errorf("%s: %w", filepath.Join(root, rel), err)
	}
	return nil
}

// walkTo opens, without following symlinks, the folder that holds rel's
// last element, and returns its descriptor and that element.
func walkTo(root, rel string) (int, string, error) {
	if rel == "" || !filepath.IsLocal(rel) || filepath.Clean(rel) != rel || rel == "." {
		return -1, "", fmt.Errorf("%q is not a name inside %s; refused", rel, root)
	}
	dir, err := unix.Open(root, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return -1, "", fmt.Errorf("%s: not a folder (or a symlink): %w", root, err)
	}
	parts := strings.Split(rel, string(filepath.Separator))
	for _, p := range parts[:len(parts)-1] {
		next, err := unix.Openat(dir, p, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		unix.Close(dir)
		if err != nil {
			return -1, "", fmt.Errorf("%s: %s is not a folder inside it (or is a symlink): %w", root, p, err)
		}
		dir = next
	}
	return dir, parts[len(parts)-1], nil
}
