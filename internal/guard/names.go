package guard

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// The one rule for a name that comes from a plan or a manifest (an eval, a
// route, a task, a group's folder) and becomes part of a path: letters,
// digits, '.', '_' and '-', beginning with a letter, a digit or '_' (so
// never "." or "..", never a hidden name such as LogFolderMarker or a
// temporary folder's), at most MaxName bytes. A route or a task names its
// parts with '/' ("gpt-5-mini/openai-responses", "inspect_evals/xstest"):
// each part follows the rule. Names are data, never paths: this rule keeps
// them from reaching outside the folder they are joined to, and
// LogFolder.Sub proves it of the path built from them.
var nameRe = regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9._-]*$`)

// MaxName is the longest name CheckName accepts: room under a file
// system's 255 bytes for the suffixes empties and inspect_ai add.
const MaxName = 200

// CheckName checks one name (no '/'); the error says what is wrong with it.
func CheckName(name string) error {
	switch {
	case name == "":
		return fmt.Errorf("is empty")
	case len(name) > MaxName:
		return fmt.Errorf("%q is longer than %d bytes", name[:40]+"...", MaxName)
	case !nameRe.MatchString(name):
		return fmt.Errorf("%q is not a name: use letters, digits, '.', '_' and '-', beginning with a letter, a digit or '_' (it becomes a folder; no '/', '..', spaces or absolute paths)", name)
	}
	return nil
}

// CheckNames checks a name of parts joined by '/' (a route, a task), each
// part by CheckName.
func CheckNames(name string) error {
	if name == "" {
		return fmt.Errorf("is empty")
	}
	for _, part := range strings.Split(name, "/") {
		if err := CheckName(part); err != nil {
			if part == name {
				return err
			}
			return fmt.Errorf("%q: part %w", name, err)
		}
	}
	return nil
}

// Sub proves that the folder rel (a local path of names checked by
// CheckName) lies inside the log folder once its symlinks are resolved,
// makes it, and proves it again: a symlink planted on the way to somewhere
// else is refused, nothing made outside. It returns the folder's path.
func (f *LogFolder) Sub(rel string) (string, error) {
	p, err := SubPath(f.real, rel)
	if err != nil {
		return "", err
	}
	if err := os.MkdirAll(p, 0o755); err != nil {
		return "", err
	}
	return SubPath(f.real, rel)
}

// SubPath is the path of the folder rel inside root (a folder resolved by
// CheckLogFolder), proved to stay inside root after resolving the symlinks
// of the part that exists; it changes nothing.
func SubPath(root, rel string) (string, error) {
	p := filepath.Join(root, rel)
	if !filepath.IsLocal(rel) || filepath.Clean(rel) != rel {
		return "", refuse(p, "is not a folder inside the log folder %s", root)
	}
	real, err := resolve(p)
	if err != nil {
		return "", err
	}
	if !within(real, root) {
		return "", refuse(p, "leads to %s, outside the log folder %s (a symlink on the way?)", real, root)
	}
	return p, nil
}
