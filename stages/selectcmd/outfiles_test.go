package selectcmd_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"empties/internal/guard"
	"empties/internal/planner"
	"empties/internal/testutil"
	"empties/stages/selectcmd"
)

// TestPlanFilesAreGuarded: select writes PLAN.md and PLAN.json only when
// they are new or plans it wrote: a user's file at either name, a symlink
// there or a folder is refused before any work (and left as it was), and a
// symlink planted at the old temporary names (P.md.tmp) is never followed.
func TestPlanFilesAreGuarded(t *testing.T) {
	data := demo(t)
	dir := t.TempDir()
	notes := testutil.NewUserTree(t, filepath.Join(dir, "home"))
	out := filepath.Join(dir, "P")
	for _, ext := range []string{".md.tmp", ".json.tmp"} {
		os.Symlink(filepath.Join(notes.Dir, "notes.txt"), out+ext)
	}
	sel := func(out string) error {
		var log bytes.Buffer
		return selectcmd.Run(context.Background(), selectcmd.Options{Config: planner.Config{Kind: "wide", Data: data, ManifestPath: manifestFile(t)}, Out: out}, &log)
	}
	for range 2 { // new, then over its own plan
		if err := sel(out); err != nil {
			t.Fatal(err)
		}
	}
	md, _ := os.ReadFile(out + ".md")
	js, _ := os.ReadFile(out + ".json")
	if !strings.HasPrefix(string(md), "<!-- written by empties select") || !strings.HasPrefix(string(js), "{\n  \"written_by\": \"empties select\"") {
		t.Errorf("the plan files lack their marks:\n%.80s\n%.80s", md, js)
	}
	notes.Check(t, "symlinks planted at P.md.tmp and P.json.tmp")

	user := filepath.Join(dir, "U")
	os.WriteFile(user+".md", []byte("# my own plan\n"), 0o644)
	link := filepath.Join(dir, "L")
	os.Symlink(filepath.Join(notes.Dir, "notes.txt"), link+".json")
	folder := filepath.Join(dir, "F")
	os.Mkdir(folder+".md", 0o755)
	whole := testutil.WitnessTree(t, dir)
	for _, p := range []string{user, link, folder} {
		err := sel(p)
		var r *guard.Refusal
		if !errors.As(err, &r) {
			t.Errorf("select --out %s: %v, want a refusal", p, err)
		}
	}
	whole.Check(t, "refused plans")
}
