package store_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"empties/internal/duck"
	"empties/internal/store"
	"empties/internal/testutil"
)

// failedStep is a commit made to fail at one of its steps: setup puts the
// obstacle in place (a user's file where the step writes, a crafted
// listing) and returns the folder it must leave as it was; want is the
// start of the error, after "commit DIR: ".
type failedStep struct {
	name  string
	stage store.Stage
	files []string // named to Commit
	setup func(t *testing.T, dir string) string
	want  string
}

// TestFailedCommitStepNamesIt: a commit that fails at a step returns an
// error naming the dataset and the step (with the path it concerns), and
// leaves the dataset at its previous generation, whole: current still
// points to it, none of its files changed, DuckDB reads its rows, and the
// user's files that made the step fail are as they were, also after the
// next run has removed what the failed one left.
func TestFailedCommitStepNamesIt(t *testing.T) {
	diskFull := store.Stage{Views: store.ViewFile{
		Write:  func(context.Context, string) error { return errors.New("no space left on device") },
		Repair: duck.ViewFile.Repair,
	}}
	cases := []failedStep{
		{
			name:  "a named file that is not in the build",
			stage: testStage, files: []string{"notes.txt"},
			want: "move notes.txt into the new generation: rename ",
		},
		{
			name:  "a carried table whose folder is a user's symlink",
			stage: testStage,
			setup: func(t *testing.T, dir string) string {
				victim := filepath.Join(filepath.Dir(dir), "victim")
				testutil.NewUserTree(t, victim)
				g := filepath.Join(dir, "gen", "000001")
				if err := os.Symlink(filepath.Join(victim, "thesis"), filepath.Join(g, "evil")); err != nil {
					t.Fatal(err)
				}
				craft(t, g, func(tables map[string]any, files []any) []any {
					tables["evil"] = []any{"data.csv"}
					return files
				})
				return victim
			},
			want: `link carried tables: ` + filepath.Join("DIR", "gen", "000001", "generation.json") + ` lists a table "evil" that is not a folder of it`,
		},
		{
			name:  "a user's file where the new generation goes",
			stage: testStage,
			setup: func(t *testing.T, dir string) string {
				mine := filepath.Join(dir, "gen", "000002")
				if err := os.WriteFile(mine, []byte("my notes\n"), 0o644); err != nil {
					t.Fatal(err)
				}
				return mine
			},
			want: "rename the new generation to " + filepath.Join("gen", "000002") + ": " + filepath.Join("DIR", "gen", "000002") + " is someone else's, not a generation; left as it is: move it out of " + filepath.Join("DIR", "gen") + " and run again",
		},
		{
			name:  "a view file that cannot be written",
			stage: diskFull,
			want:  "write the view file of " + filepath.Join("DIR", "gen", "000002") + ": no space left on device",
		},
		{
			name:  "a user's folder where the next link goes",
			stage: testStage,
			setup: func(t *testing.T, dir string) string {
				mine := filepath.Join(dir, ".current-000002")
				testutil.NewUserTree(t, mine)
				return mine
			},
			want: "make the link .current-000002: DIR/.current-000002 is not a symbolic link; left as it is",
		},
		{
			name:  "a user's empty folder where the next link goes",
			stage: testStage,
			setup: func(t *testing.T, dir string) string {
				mine := filepath.Join(dir, ".current-000002")
				if err := os.Mkdir(mine, 0o755); err != nil {
					t.Fatal(err)
				}
				return mine
			},
			want: "make the link .current-000002: DIR/.current-000002 is not a symbolic link; left as it is",
		},
		{
			name:  "a user's file where the next link goes",
			stage: testStage,
			setup: func(t *testing.T, dir string) string {
				mine := filepath.Join(dir, ".current-000002")
				if err := os.WriteFile(mine, []byte("my notes\n"), 0o644); err != nil {
					t.Fatal(err)
				}
				return mine
			},
			want: "make the link .current-000002: DIR/.current-000002 is not a symbolic link; left as it is",
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "ds")
			commitTables(t, dir, "old", "t1", "t2", "t3")
			var mine testutil.UserTree
			if c.setup != nil {
				mine = testutil.WitnessTree(t, c.setup(t, dir))
			}
			first := filepath.Join(dir, "gen", "000001")
			old := testutil.WitnessTree(t, first)

			ds, err := store.Create(c.stage, dir)
			if err != nil {
				t.Fatal(err)
			}
			writeTables(t, ds, "new", "t1", "t2")
			err = ds.Commit(c.files...)
			want := "commit " + dir + ": " + strings.ReplaceAll(c.want, "DIR", dir)
			if err == nil || !strings.HasPrefix(err.Error(), want) {
				t.Errorf("Commit: %v\nwant an error starting %q", err, want)
			}
			ds.Close()

			for _, after := range []string{"the failed commit", "the next run's recovery"} {
				if cur, err := store.Current(dir); err != nil || cur != first {
					t.Errorf("after %s current is %q (%v), want %s", after, cur, err, first)
				}
				old.Check(t, "the previous generation after "+after)
				if c.setup != nil {
					mine.Check(t, after)
				}
				readWhole(t, dir, "old")
				if after == "the failed commit" {
					ds, err := store.Create(testStage, dir)
					if err != nil {
						t.Fatal(err)
					}
					ds.Close()
				}
			}
		})
	}
}
