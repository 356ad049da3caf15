package app_test

import (
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"empties/internal/testutil"
)

// Stages are commands over the domain packages: outside stages/ and cmd/,
// only the wiring (internal/app), the pipeline run (stages/runcmd, itself a
// stage) and the end-to-end test, which runs the pipeline through run on
// purpose, import a stage. A domain package or its tests that imported one
// would put a rule, or a test's inputs, behind a command's flags and
// printing.
func TestOnlyTheWiringImportsAStage(t *testing.T) {
	root := testutil.RepoRoot(t)
	allowed := map[string]bool{"internal/app": true, "internal/e2e": true}
	checked := 0
	for _, top := range []string{"internal", "schema"} {
		err := filepath.WalkDir(filepath.Join(root, top), func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(p, ".go") {
				return err
			}
			rel, _ := filepath.Rel(root, p)
			if allowed[filepath.ToSlash(filepath.Dir(rel))] {
				return nil
			}
			f, err := parser.ParseFile(token.NewFileSet(), p, nil, parser.ImportsOnly)
			if err != nil {
				return err
			}
			checked++
			for _, imp := range f.Imports {
				if path, _ := strconv.Unquote(imp.Path.Value); strings.HasPrefix(path, "empties/stages/") {
					t.Errorf("%s imports the stage %s: build with the domain package the stage calls", rel, path)
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if checked < 100 {
		t.Fatalf("checked %d files: the walk missed the tree", checked)
	}
}
