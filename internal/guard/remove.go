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
	dir, name, err := walkTo(root, rel)
	if err != nil {
		return err
	}
	defer unix.Close(dir)
	var st unix.Stat_t
	if err := unix.Fstatat(dir, name, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		return fmt.Errorf("%s: %w", filepath.Join(root, rel), err)
	}
	if st.Mode&unix.S_IFMT != unix.S_IFREG {
		return fmt.Errorf("%s is not a plain file", filepath.Join(root, rel))
	}
	return nil
}

// RemoveFile removes root/rel if it is a plain file inside root (Inside),
// without following a symlink at any step.
func RemoveFile(root, rel string) error {
	dir, name, err := walkTo(root, rel)
	if err != nil {
		return err
	}
	defer unix.Close(dir)
	var st unix.Stat_t
	if err := unix.Fstatat(dir, name, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		return fmt.Errorf("%s: %w", filepath.Join(root, rel), err)
	}
	if st.Mode&unix.S_IFMT != unix.S_IFREG {
		return fmt.Errorf("%s is not a plain file; left as it is", filepath.Join(root, rel))
	}
	if err := unix.Unlinkat(dir, name, 0); err != nil {
		return fmt.Errorf("%s: %w", filepath.Join(root, rel), err)
	}
	return nil
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
