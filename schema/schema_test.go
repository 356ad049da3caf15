package schema

import (
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// Every declared table has an owner among the stages, a key of its own
// columns, and a row type of its own; the tables kept when the replies
// change are ingest's and exposure.
func TestEveryTableHasAnOwnerAndAKey(t *testing.T) {
	stages := []string{StageIngest, StageClassify, StageRescore, StageSelect, StageDecide, StageExposure}
	seen := map[string]bool{}
	for _, tb := range Tables() {
		if seen[tb.Name] {
			t.Errorf("%s is declared twice", tb.Name)
		}
		seen[tb.Name] = true
		for _, w := range tb.Writers() {
			if !slices.Contains(stages, w) {
				t.Errorf("%s: writer %q is no stage", tb.Name, w)
			}
		}
		if len(tb.Key) == 0 {
			t.Errorf("%s has no key", tb.Name)
		}
		cols := map[string]bool{}
		for _, c := range tb.Columns() {
			cols[c.Name] = true
		}
		for _, k := range tb.Key {
			if !cols[k] {
				t.Errorf("%s: key column %s is not a column", tb.Name, k)
			}
		}
	}
	if got := Owner("decisions"); got != StageDecide {
		t.Errorf("decisions owned by %q", got)
	}
	if got := Owner("class_rates"); got != StageAnalyze {
		t.Errorf("an analysis output owned by %q, want analyze", got)
	}
	want := []string{"exposure", "ingest_errors", "logs", "model_calls", "replies", "scores"}
	if got := KeptWhenRepliesChange(); !slices.Equal(got, want) {
		t.Errorf("kept when replies change: %v, want %v", got, want)
	}
}

// Every optional column is a pointer field, so NULL is nil and nothing
// else. parquet-go v0.32 writes the zero value of an optional non-pointer
// field as NULL only until the column's first non-zero value; after it, ""
// (or 0, or false) is written as a value. Upstream has changed this rule
// twice (parquet-go PRs #480 and #523), so no column may depend on it.
// The declarations are read from the source, so a struct of schema/ that no
// table lists is held to it too.
func TestOptionalColumnsArePointers(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	checked := 0
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			st, ok := n.(*ast.StructType)
			if !ok {
				return true
			}
			for _, field := range st.Fields.List {
				if field.Tag == nil {
					continue
				}
				tag, err := strconv.Unquote(field.Tag.Value)
				if err != nil {
					t.Fatal(err)
				}
				opts := strings.Split(reflect.StructTag(tag).Get("parquet"), ",")
				if !slices.Contains(opts[1:], "optional") {
					continue
				}
				checked++
				if _, ok := field.Type.(*ast.StarExpr); !ok {
					t.Errorf("%s: column %s is optional but its field is %s, not a pointer: nil must be its only NULL", fset.Position(field.Pos()), opts[0], types.ExprString(field.Type))
				}
			}
			return true
		})
	}
	// The declarations found are the tables' nullable columns.
	nullable := 0
	for _, tb := range Tables() {
		for _, c := range tb.Columns() {
			if c.Nullable {
				nullable++
			}
		}
	}
	if checked == 0 || checked != nullable {
		t.Errorf("found %d optional fields in schema/'s source, the tables have %d nullable columns", checked, nullable)
	}
}
