package app

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/urfave/cli/v3"

	"empties/internal/cliutil"
	"empties/internal/testutil"
)

// Every stage has one shape, in one file: stages/<stage>cmd/command.go
// holds its Options (embedding the domain Config it fills, never copying
// its fields), Command(), Options.Validate() and Run, whose first statement
// is the one call of Validate, so every usage mistake is found there, before
// any work, by the command line and by run alike.
func TestEveryStageHasOneShape(t *testing.T) {
	root := testutil.RepoRoot(t)
	dirs, err := os.ReadDir(filepath.Join(root, "stages"))
	if err != nil {
		t.Fatal(err)
	}
	if len(dirs) < 15 {
		t.Fatalf("%d stages: the walk missed the tree", len(dirs))
	}
	for _, d := range dirs {
		name := d.Name()
		p := filepath.Join(root, "stages", name, "command.go")
		f, err := parser.ParseFile(token.NewFileSet(), p, nil, 0)
		if err != nil {
			t.Errorf("stages/%s: %v (the file holding Options, Command and Run is command.go)", name, err)
			continue
		}
		if f.Name.Name != name || !strings.HasSuffix(name, "cmd") {
			t.Errorf("stages/%s is package %s: a stage is package <stage>cmd in stages/<stage>cmd", name, f.Name.Name)
		}
		var options *ast.StructType
		var validate, command, run *ast.FuncDecl
		// the domain Configs command.go builds other than as the Config of
		// an Options: a Config copied field by field from the options
		var copied []string
		inOptions := map[*ast.CompositeLit]bool{}
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.TypeSpec:
				if st, ok := n.Type.(*ast.StructType); ok && n.Name.Name == "Options" {
					options = st
				}
			case *ast.FuncDecl:
				switch {
				case n.Recv != nil && n.Name.Name == "Validate" && typeName(n.Recv.List[0].Type) == "Options":
					validate = n
				case n.Recv == nil && n.Name.Name == "Command":
					command = n
				case n.Recv == nil && n.Name.Name == "Run":
					run = n
				}
			case *ast.CompositeLit:
				if strings.HasSuffix(typeName(n.Type), "Options") {
					for _, e := range n.Elts {
						if kv, ok := e.(*ast.KeyValueExpr); ok {
							if k, ok := kv.Key.(*ast.Ident); ok && k.Name == "Config" {
								if lit, ok := kv.Value.(*ast.CompositeLit); ok {
									inOptions[lit] = true
								}
							}
						}
					}
				}
				if sel, ok := n.Type.(*ast.SelectorExpr); ok && sel.Sel.Name == "Config" && !inOptions[n] {
					copied = append(copied, typeName(sel))
				}
			}
			return true
		})
		switch {
		case options == nil:
			t.Errorf("stages/%s/command.go declares no Options struct", name)
		case validate == nil:
			t.Errorf("stages/%s/command.go: Options has no Validate method", name)
		case command == nil || run == nil:
			t.Errorf("stages/%s/command.go: no Command() or no Run", name)
		default:
			if !validatesFirst(run) {
				t.Errorf("stages/%s: Run does not begin with `if err := opts.Validate(); err != nil { return err }`", name)
			}
			for _, c := range copied {
				t.Errorf("stages/%s: builds a %s out of its options: Options embeds the domain Config it fills", name, c)
			}
		}
	}
}

// validatesFirst reports whether run's first statement is
// `if err := opts.Validate(); err != nil { return err }`.
func validatesFirst(run *ast.FuncDecl) bool {
	if len(run.Body.List) == 0 || len(run.Type.Params.List) < 2 {
		return false
	}
	opts := run.Type.Params.List[1].Names[0].Name
	st, ok := run.Body.List[0].(*ast.IfStmt)
	if !ok || st.Init == nil || len(st.Body.List) != 1 {
		return false
	}
	as, ok := st.Init.(*ast.AssignStmt)
	if !ok || len(as.Rhs) != 1 {
		return false
	}
	call, ok := as.Rhs[0].(*ast.CallExpr)
	if !ok {
		return false
	}
	sel, ok := call.Fun.(*ast.SelectorExpr)
	if !ok || sel.Sel.Name != "Validate" {
		return false
	}
	x, ok := sel.X.(*ast.Ident)
	cond, isBinary := st.Cond.(*ast.BinaryExpr)
	_, returns := st.Body.List[0].(*ast.ReturnStmt)
	return ok && x.Name == opts && isBinary && cond.Op == token.NEQ && typeName(cond.Y) == "nil" && returns
}

// typeName is "pkg.Name" or "Name" of a type expression.
func typeName(e ast.Expr) string {
	switch e := e.(type) {
	case *ast.Ident:
		return e.Name
	case *ast.StarExpr:
		return typeName(e.X)
	case *ast.SelectorExpr:
		return typeName(e.X) + "." + e.Sel.Name
	}
	return ""
}

// An import is named by its package: no file renames one (the stages were
// named like their domain packages, which made files holding both say
// domain, iserve, ireport, planjson). The only name written is a package's
// own where its folder's differs (sqlfiles "empties/sql").
func TestNoImportIsRenamed(t *testing.T) {
	root := testutil.RepoRoot(t)
	pkgName := map[string]string{} // import path -> package name
	nameOf := func(path string) string {
		if n, ok := pkgName[path]; ok {
			return n
		}
		dir := filepath.Join(root, strings.TrimPrefix(path, "empties"))
		entries, _ := os.ReadDir(dir)
		for _, e := range entries {
			if strings.HasSuffix(e.Name(), ".go") && !strings.HasSuffix(e.Name(), "_test.go") {
				if f, err := parser.ParseFile(token.NewFileSet(), filepath.Join(dir, e.Name()), nil, parser.PackageClauseOnly); err == nil {
					pkgName[path] = f.Name.Name
					return f.Name.Name
				}
			}
		}
		pkgName[path] = ""
		return ""
	}
	checked := 0
	for _, top := range []string{"cmd", "stages", "internal", "schema", "scripts", "sql"} {
		err := filepath.WalkDir(filepath.Join(root, top), func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(p, ".go") {
				return err
			}
			f, err := parser.ParseFile(token.NewFileSet(), p, nil, parser.ImportsOnly)
			if err != nil {
				return err
			}
			checked++
			rel, _ := filepath.Rel(root, p)
			for _, imp := range f.Imports {
				path, _ := strconv.Unquote(imp.Path.Value)
				if imp.Name == nil || !strings.HasPrefix(path, "empties/") {
					continue
				}
				if want := nameOf(path); imp.Name.Name != want {
					t.Errorf("%s imports %s as %s: import it by its name, %s", rel, path, imp.Name.Name, want)
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

// Every command that reads the manifest takes the override its check of the
// pre-registration names ("override with --allow-prereg-mismatch"); select
// and rerun did not, so the message named a flag they refused.
func TestEveryManifestReaderTakesThePreregOverride(t *testing.T) {
	n := 0
	for _, c := range Commands() {
		var manifest, override bool
		for _, f := range c.Flags {
			manifest = manifest || hasName(f, cliutil.ManifestFlag)
			override = override || hasName(f, cliutil.AllowPreregMismatchFlag)
		}
		if manifest {
			n++
			if !override {
				t.Errorf("%s takes --%s but not --%s", c.Name, cliutil.ManifestFlag, cliutil.AllowPreregMismatchFlag)
			}
		}
	}
	if n < 6 {
		t.Errorf("%d commands take --manifest, want analyze, decide, rerun, rescore, run and select", n)
	}
}

func hasName(f cli.Flag, name string) bool {
	for _, n := range f.Names() {
		if n == name {
			return true
		}
	}
	return false
}
