package guard_test

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"empties/internal/guard"
)

// The calls that remove, rename or make a temporary name. Outside the guard
// (and the dataset writer, internal/store, which owns a dataset's build
// folder) no code of the product calls them: every such path goes through
// this package.
var pathChanging = map[string]bool{
	"Remove": true, "RemoveAll": true, "Rename": true, "MkdirTemp": true, "CreateTemp": true,
}

// Packages allowed to call them: the guard itself, the dataset writer, and
// test-only code (fixtures, the S3 test server).
var mayChangePaths = []string{"internal/guard", "internal/store", "internal/testutil", "internal/objstore/s3test"}

func TestEveryRemoveAndRenameGoesThroughTheGuard(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	var found []string
	for _, top := range []string{"cmd", "stages", "internal", "schema"} {
		err := filepath.WalkDir(filepath.Join(root, top), func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			rel, _ := filepath.Rel(root, p)
			if d.IsDir() {
				for _, ok := range mayChangePaths {
					if rel == ok {
						return filepath.SkipDir
					}
				}
				if d.Name() == "testdata" {
					return filepath.SkipDir
				}
				return nil
			}
			if !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
				return nil
			}
			found = append(found, osCalls(t, p, rel)...)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	sort.Strings(found)
	for _, f := range found {
		t.Errorf("%s: use internal/guard (TempDir, Unlinked, RemoveFile, ReplaceFile, OpenFolder, OpenFiles...), not os directly", f)
	}
}

// osCalls lists the calls of pathChanging functions of package os in file p.
func osCalls(t *testing.T, p, rel string) []string {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, p, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	osName := ""
	for _, imp := range f.Imports {
		if imp.Path.Value == `"os"` {
			osName = "os"
			if imp.Name != nil {
				osName = imp.Name.Name
			}
		}
	}
	if osName == "" {
		return nil
	}
	var out []string
	ast.Inspect(f, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok {
			return true
		}
		sel, ok := call.Fun.(*ast.SelectorExpr)
		if !ok {
			return true
		}
		if id, ok := sel.X.(*ast.Ident); ok && id.Name == osName && pathChanging[sel.Sel.Name] {
			out = append(out, fmt.Sprintf("%s:%d: os.%s", rel, fset.Position(call.Pos()).Line, sel.Sel.Name))
		}
		return true
	})
	return out
}

func TestUnlinkedLeavesNoName(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	f, err := guard.Unlinked("empties-x-*.json")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString("bytes"); err != nil {
		t.Fatal(err)
	}
	if names, _ := os.ReadDir(os.Getenv("TMPDIR")); len(names) != 0 {
		t.Fatalf("a name is left in the temporary folder: %v", names)
	}
}

func TestReplaceFileReplacesOnlyAPlainFile(t *testing.T) {
	root := t.TempDir()
	write := func(p, s string) {
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(root, "views"), "old")
	newFile := filepath.Join(root, "new")
	write(newFile, "new")
	if err := guard.ReplaceFile(root, "views", newFile); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(root, "views")); string(b) != "new" {
		t.Fatalf("views = %q, want new", b)
	}
	// A symlink planted at the name is left, and so is what it points to.
	user := filepath.Join(t.TempDir(), "user.txt")
	write(user, "mine")
	if err := os.Remove(filepath.Join(root, "views")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(user, filepath.Join(root, "views")); err != nil {
		t.Fatal(err)
	}
	write(newFile, "new")
	if err := guard.ReplaceFile(root, "views", newFile); err == nil {
		t.Fatal("a symlink was replaced")
	}
	if b, _ := os.ReadFile(user); string(b) != "mine" {
		t.Fatalf("the user's file = %q", b)
	}
	if fi, err := os.Lstat(filepath.Join(root, "views")); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("the symlink is gone: %v %v", fi, err)
	}
}
