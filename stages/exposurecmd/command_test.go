package exposurecmd

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"

	"empties/internal/cliutil"
	"empties/internal/exposure"
	"empties/internal/guard"
	"empties/internal/testutil"
)

const fixtures = "../../testdata/exposure"

// TestRunWritesTables runs the command's Run on a fixture and reads the
// Parquet back with parquet-go, checking the declared columns and the rows.
func TestRunWritesTables(t *testing.T) {
	out := t.TempDir()
	var stdout bytes.Buffer
	path := filepath.Join(fixtures, "judge-without-guard")
	if err := Run(context.Background(), Options{Path: path, Out: out}, &stdout); err != nil {
		t.Fatal(err)
	}

	file := filepath.Join(out, "current", "exposure", "exposure.parquet")
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		t.Fatal(err)
	}
	pf, err := parquet.OpenFile(f, info.Size())
	if err != nil {
		t.Fatal(err)
	}
	var cols []string
	for _, c := range pf.Schema().Fields() {
		typ := c.Type().String()
		if c.Optional() {
			typ = "optional " + typ
		}
		cols = append(cols, c.Name()+" "+typ)
	}
	wantCols := []string{
		"eval STRING", "criterion INT(32,true)", "criterion_name STRING", "file STRING", "line INT(32,true)",
		"function STRING", "code STRING", "detail STRING", "value optional STRING",
	}
	if !reflect.DeepEqual(cols, wantCols) {
		t.Errorf("columns:\n got %v\nwant %v", cols, wantCols)
	}
	for _, rg := range pf.Metadata().RowGroups {
		for i, cc := range rg.Columns {
			if codec := cc.MetaData.Codec.String(); codec != "ZSTD" {
				t.Errorf("column %d compressed with %s, want ZSTD", i, codec)
			}
		}
	}

	rows, err := parquet.ReadFile[exposure.Finding](file)
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, r := range rows {
		k := fmt.Sprintf("%s c%d %s:%d", r.Eval, r.Criterion, r.File, r.Line)
		if r.Value != nil {
			k += " =" + *r.Value
		}
		keys = append(keys, k)
		if r.CriterionName != exposure.Criteria[r.Criterion-1].Name || r.Code == "" || r.Detail == "" || r.Function == "" {
			t.Errorf("incomplete row %+v", r)
		}
	}
	want := []string{
		"bare_judge c2 src/inspect_evals/bare_judge/bare_judge.py:9",
		"choices_only c1 src/inspect_evals/choices_only/choices_only.py:13",
		"choices_only c2 src/inspect_evals/choices_only/choices_only.py:15",
		"own_judge c2 src/inspect_evals/own_judge/own_judge.py:18",
	}
	if !reflect.DeepEqual(keys, want) {
		t.Errorf("rows:\n got %v\nwant %v", keys, want)
	}
	if rows[0].Code != "return Task(dataset=[], scorer=graded())" {
		t.Errorf("code = %q", rows[0].Code)
	}

	md, err := os.ReadFile(filepath.Join(out, "current", "exposure", "exposure.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"### bare_judge", "### choices_only", "### own_judge", "| 2 | **unguarded_judge**", "`src/inspect_evals/own_judge/own_judge.py:18`"} {
		if !bytes.Contains(md, []byte(s)) {
			t.Errorf("exposure.md lacks %q", s)
		}
	}
	wantOut := "exposure: scanned 3 evals (9 Python files) under " + filepath.Join(path, "src", "inspect_evals") + "\n" +
		"  1 empty_check        1 evals\n" +
		"  2 unguarded_judge    3 evals\n" +
		"  3 max_tokens         0 evals\n" +
		"  4 refusal_signal     0 evals\n" +
		"wrote 4 findings to " + filepath.Join(out, "current", "exposure", "exposure.parquet") + " and " + filepath.Join(out, "current", "exposure", "exposure.md") + "\n"
	if stdout.String() != wantOut {
		t.Errorf("stdout:\n%s\nwant:\n%s", stdout.String(), wantOut)
	}
	if left, _ := filepath.Glob(filepath.Join(out, "current", "exposure", ".*.tmp")); len(left) > 0 {
		t.Errorf("temporary files left: %v", left)
	}
}

func TestRunUsageErrors(t *testing.T) {
	empty, out := t.TempDir(), filepath.Join(t.TempDir(), "ds")
	cases := []struct {
		name string
		opts Options
		msg  string
	}{
		{"no PATH", Options{Out: out}, "PATH is required"},
		{"no --out", Options{Path: fixtures}, "--out DIR is required"},
		{"missing folder", Options{Path: filepath.Join(empty, "nope"), Out: out}, "no such folder"},
		{"not a package", Options{Path: empty, Out: out}, "no inspect_evals package here"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := Run(context.Background(), tc.opts, &bytes.Buffer{})
			var usage *cliutil.UsageError
			if !errors.As(err, &usage) {
				t.Fatalf("err = %v, want a usage error", err)
			}
			if !strings.Contains(err.Error(), tc.msg) {
				t.Errorf("err = %q, want it to mention %q", err, tc.msg)
			}
		})
	}
}

func TestCommandArgs(t *testing.T) {
	var stdout bytes.Buffer
	cmd := Command()
	cmd.Writer = &stdout
	err := cmd.Run(context.Background(), []string{"exposure", "--out", t.TempDir()})
	var usage *cliutil.UsageError
	if !errors.As(err, &usage) || !strings.Contains(err.Error(), "give one PATH") {
		t.Fatalf("err = %v, want the one-PATH usage error", err)
	}
	out := t.TempDir()
	if err := cmd.Run(context.Background(), []string{"exposure", "--out", out, filepath.Join(fixtures, "empty-checks")}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(stdout.String(), "scanned 1 evals") {
		t.Errorf("stdout = %q", stdout.String())
	}
	if _, err := os.Stat(filepath.Join(out, "current", "exposure", "exposure.parquet")); err != nil {
		t.Error(err)
	}
}

// TestRunRefusesTheScannedTree: the dataset is not written into, around or
// inside the tree it scans, and the tree is left as it was.
func TestRunRefusesTheScannedTree(t *testing.T) {
	tree := t.TempDir()
	user := testutil.NewUserTree(t, filepath.Join(tree, "inspect_evals"))
	for _, out := range []string{user.Dir, tree, filepath.Join(user.Dir, "ds")} {
		err := Run(context.Background(), Options{Path: user.Dir, Out: out}, &bytes.Buffer{})
		var r *guard.Refusal
		if !errors.As(err, &r) {
			t.Errorf("--out %s: %v, want a refusal", out, err)
		}
	}
	user.Check(t, "exposure --out into its PATH")
}
