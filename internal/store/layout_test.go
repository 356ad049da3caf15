package store_test

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"empties/internal/duck"
	"empties/internal/store"
	"empties/internal/testutil"
)

// testStage writes no table of schema/, and the view file of every generation.
var testStage = store.Stage{Views: duck.ViewFile}

type kv struct {
	Table string `parquet:"table"`
	Value string `parquet:"value"`
}

// commitTables writes one row into each table, value v, and commits them
// in one generation.
func commitTables(t testing.TB, dir, v string, tables ...string) {
	t.Helper()
	ds, err := store.Create(testStage, dir)
	if err != nil {
		t.Fatal(err)
	}
	defer ds.Close()
	writeTables(t, ds, v, tables...)
	if err := ds.Commit(); err != nil {
		t.Fatal(err)
	}
}

func writeTables(t testing.TB, ds *store.Dataset, v string, tables ...string) {
	t.Helper()
	for _, tb := range tables {
		w, err := store.NewWriter[kv](ds, tb)
		if err != nil {
			t.Fatal(err)
		}
		if err := w.Write(kv{tb, v}); err != nil {
			t.Fatal(err)
		}
		if err := w.Keep(ds); err != nil {
			t.Fatal(err)
		}
		if err := store.Merge[kv](ds, tb); err != nil {
			t.Fatal(err)
		}
	}
}

// A folder that holds anything and is not an empties dataset is refused,
// with a hint, and left exactly as it was: no lock, no marker.
func TestCreateRefusesForeignFolders(t *testing.T) {
	for _, tc := range []struct {
		name  string
		files map[string]string
		want  string
	}{
		{"inspect logs", map[string]string{"logs/2025-01-01_task.eval": "PK", "logs/logs.json": "{}"}, "is not an empties dataset"},
		{"one file", map[string]string{"notes.txt": "mine"}, "write the dataset to a new or empty folder"},
		{"dot folders", map[string]string{".staging-x/keep": "mine", ".git/HEAD": "ref"}, "is not an empties dataset"},
		{"old layout", map[string]string{"replies/part-00000.parquet": "PAR1", "empties.duckdb": "", ".lock": ""}, "written by an older empties"},
		{"bad marker", map[string]string{store.MarkerFile: `{"format":"something else"}`, "x": "1"}, "not an empties dataset marker"},
		{"newer format", map[string]string{store.MarkerFile: `{"format":"empties dataset","version":99}`}, "written by a newer empties"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			for p, body := range tc.files {
				os.MkdirAll(filepath.Join(dir, filepath.Dir(p)), 0o755)
				if err := os.WriteFile(filepath.Join(dir, p), []byte(body), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			before := testutil.Snapshot(t, dir)
			ds, err := store.Create(testStage, dir)
			if err == nil {
				ds.Close()
				t.Fatal("Create accepted the folder")
			}
			if !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), dir) {
				t.Errorf("error %q does not say %q and name %s", err, tc.want, dir)
			}
			testutil.SameTree(t, "Create", before, testutil.Snapshot(t, dir))
		})
	}
}

// A new folder and an empty one become datasets; the marker carries the
// format version.
func TestCreateMarksNewDatasets(t *testing.T) {
	for _, dir := range []string{filepath.Join(t.TempDir(), "new", "data"), t.TempDir()} {
		commitTables(t, dir, "a", "t1")
		b, err := os.ReadFile(filepath.Join(dir, store.MarkerFile))
		if err != nil || !strings.Contains(string(b), `"version":`+strconv.Itoa(store.FormatVersion)) {
			t.Errorf("%s: marker %q, %v", dir, b, err)
		}
		cur, err := store.Current(dir)
		if err != nil || filepath.Dir(cur) != filepath.Join(dir, "gen") {
			t.Errorf("current generation %q, %v", cur, err)
		}
	}
}

// Nothing empties did not write is removed: a file a user put in a table
// folder, a folder of theirs under gen/, and dot folders at the top, across
// commits that replace and drop tables.
func TestForeignFilesSurvive(t *testing.T) {
	dir := t.TempDir()
	commitTables(t, dir, "a", "t1", "t2")
	cur, _ := store.Current(dir)
	mine := map[string]string{
		filepath.Join(cur, "t1", "notes.txt"):         "mine",
		filepath.Join(cur, "t2", "extra.csv"):         "mine",
		filepath.Join(dir, "gen", ".build-mine", "x"): "mine", // not marked as empties' build
		filepath.Join(dir, "gen", "000099-copy", "y"): "mine",
		filepath.Join(dir, ".staging-123-abc", "z"):   "mine",
		filepath.Join(dir, "review", "sample.html"):   "mine",
		filepath.Join(dir, "current-backup.txt"):      "mine",
		filepath.Join(dir, "gen", "000077", "orphan"): "mine", // a numbered folder without generation.json
	}
	for p, body := range mine {
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ds, err := store.Create(testStage, dir)
	if err != nil {
		t.Fatal(err)
	}
	writeTables(t, ds, "b", "t1")
	ds.Drop("t2")
	if err := ds.Commit(); err != nil {
		t.Fatal(err)
	}
	ds.Close()
	commitTables(t, dir, "c", "t3")
	for p, body := range mine {
		if b, err := os.ReadFile(p); err != nil || string(b) != body {
			t.Errorf("%s: %q, %v", p, b, err)
		}
	}
	if got := store.Tables(dir); strings.Join(got, ",") != "t1,t3" {
		t.Errorf("tables %v, want t1,t3", got)
	}
	rows, err := store.ReadAll[kv](dir, "t1")
	if err != nil || len(rows) != 1 || rows[0].Value != "b" {
		t.Errorf("t1 rows %v, %v", rows, err)
	}
}

// Unchanged tables are hard-linked into the next generation, not copied.
func TestUnchangedTablesAreLinked(t *testing.T) {
	dir := t.TempDir()
	commitTables(t, dir, "a", "t1", "t2")
	before, _ := os.Stat(store.TableFiles(dir, "t2")[0])
	commitTables(t, dir, "b", "t1")
	after, _ := os.Stat(store.TableFiles(dir, "t2")[0])
	if !os.SameFile(before, after) {
		t.Error("t2's file was copied into the new generation, not linked")
	}
	gens, _ := os.ReadDir(filepath.Join(dir, "gen"))
	if len(gens) != 1 {
		t.Errorf("gen/ holds %d entries after two commits, want the current one only", len(gens))
	}
}

// The view file at the top of the dataset is the current generation's and
// reads exactly its tables.
func TestViewFileFollowsCurrent(t *testing.T) {
	dir := t.TempDir()
	commitTables(t, dir, "a", "t1")
	commitTables(t, dir, "b", "t1", "t2")
	db, err := duck.Open(filepath.Join(dir, store.ViewsFile))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	_, rows, err := duck.Rows(context.Background(), db, "SELECT value FROM t1 UNION ALL SELECT value FROM t2")
	if err != nil || len(rows) != 2 || rows[0][0] != "b" || rows[1][0] != "b" {
		t.Errorf("views read %v, %v", rows, err)
	}
}

// The kill tests: a run stopped after each step of Commit (the process
// exits there, as on SIGKILL or power loss once the fsyncs are in) leaves a
// dataset in which a reader sees the old generation whole or the new one
// whole, and the next run removes what it left and commits.
func TestKillAtEveryCommitStep(t *testing.T) {
	if os.Getenv("EMPTIES_KILL_DIR") != "" {
		return // the helper process runs killedCommit from TestMain
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	for k := 0; k <= store.CommitSteps; k++ {
		t.Run(fmt.Sprint("after step ", k), func(t *testing.T) {
			dir := t.TempDir()
			commitTables(t, dir, "old", "t1", "t2", "t3")
			cmd := exec.Command(exe, "-test.run=^$")
			cmd.Env = append(os.Environ(), "EMPTIES_KILL_DIR="+dir, "EMPTIES_KILL_STEP="+strconv.Itoa(k))
			out, err := cmd.CombinedOutput()
			if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 3 {
				t.Fatalf("helper did not stop at step %d: %v\n%s", k, err, out)
			}
			want := "old"
			if k >= 6 {
				want = "new"
			}
			readWhole(t, dir, want)
			// The next run recovers: no build folder, no second
			// generation, no half-made link; then it commits.
			ds, err := store.Create(testStage, dir)
			if err != nil {
				t.Fatal(err)
			}
			ds.Close()
			readWhole(t, dir, want)
			var left []string
			entries, _ := os.ReadDir(filepath.Join(dir, "gen"))
			for _, e := range entries {
				left = append(left, e.Name())
			}
			top, _ := os.ReadDir(dir)
			for _, e := range top {
				if strings.HasPrefix(e.Name(), ".current-") {
					left = append(left, e.Name())
				}
			}
			if len(left) != 1 {
				t.Errorf("after recovery gen/ and DIR hold %v, want the current generation only", left)
			}
			commitTables(t, dir, "next", "t1", "t2")
			readWhole(t, dir, "next")
		})
	}
}

// readWhole checks that the current generation holds t1, t2 and t3 (t3
// from the first commit when want is "new" or "next" kept it), each with the
// value want, read through one resolution of current and through DuckDB.
func readWhole(t *testing.T, dir, want string) {
	t.Helper()
	cur, err := store.Current(dir)
	if err != nil || cur == "" {
		t.Fatalf("no current generation: %v", err)
	}
	tables := store.Tables(cur)
	if strings.Join(tables, ",") != "t1,t2,t3" {
		t.Errorf("tables %v", tables)
	}
	ctx := context.Background()
	db, _, err := duck.OpenDataset(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	_, rows, err := duck.Rows(ctx, db, "SELECT value, count(*) FROM (SELECT * FROM t1 UNION ALL SELECT * FROM t2) GROUP BY ALL")
	if err != nil || len(rows) != 1 || rows[0][0] != want || rows[0][1] != int64(2) {
		t.Errorf("t1 and t2 read %v (%v), want both %q", rows, err, want)
	}
	t3, err := store.ReadAll[kv](cur, "t3")
	if err != nil || len(t3) != 1 || t3[0].Value != "old" {
		t.Errorf("t3 read %v, %v; want the first commit's row", t3, err)
	}
}

// killedCommit is the helper process: it writes new t1 and t2 and exits
// with code 3 after step EMPTIES_KILL_STEP of Commit (0: before it).
func killedCommit() {
	dir := os.Getenv("EMPTIES_KILL_DIR")
	k, _ := strconv.Atoi(os.Getenv("EMPTIES_KILL_STEP"))
	store.SetCommitStep(func(step int) {
		if step == k {
			os.Exit(3)
		}
	})
	ds, err := store.Create(testStage, dir)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	writeTables(&exitTB{}, ds, "new", "t1", "t2")
	if k == 0 {
		os.Exit(3)
	}
	if err := ds.Commit(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Exit(0)
}

// exitTB is the testing.TB of the helper process: a failure exits.
type exitTB struct{ testing.TB }

func (*exitTB) Helper() {}
func (*exitTB) Fatal(args ...any) {
	fmt.Fprintln(os.Stderr, args...)
	os.Exit(1)
}

// A generation a reader in another process resolved stays while it reads:
// a Commit switches past it and leaves it; once the reader is gone, the
// next run removes it.
func TestReaderKeepsItsGeneration(t *testing.T) {
	dir := t.TempDir()
	commitTables(t, dir, "old", "t1")
	first, _ := store.Current(dir)
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	reader := exec.Command(exe, "-test.run=^$")
	reader.Env = append(os.Environ(), "EMPTIES_PIN_DIR="+dir)
	stdin, _ := reader.StdinPipe()
	stdout, _ := reader.StdoutPipe()
	if err := reader.Start(); err != nil {
		t.Fatal(err)
	}
	line := make([]byte, 7)
	if _, err := io.ReadFull(stdout, line); err != nil || string(line) != "pinned\n" {
		t.Fatalf("reader: %q, %v", line, err)
	}
	commitTables(t, dir, "new", "t1")
	if rows, err := store.ReadAll[kv](first, "t1"); err != nil || len(rows) != 1 || rows[0].Value != "old" {
		t.Errorf("the reader's generation after a Commit: %v, %v", rows, err)
	}
	if rows, _ := store.ReadAll[kv](dir, "t1"); len(rows) != 1 || rows[0].Value != "new" {
		t.Errorf("current after the Commit: %v", rows)
	}
	stdin.Close()
	if err := reader.Wait(); err != nil {
		t.Fatal(err)
	}
	ds, err := store.Create(testStage, dir)
	if err != nil {
		t.Fatal(err)
	}
	ds.Close()
	if _, err := os.Stat(first); !os.IsNotExist(err) {
		t.Errorf("%s is still there once its reader is gone: %v", first, err)
	}
}

func TestMain(m *testing.M) {
	if dir := os.Getenv("EMPTIES_PIN_DIR"); dir != "" {
		// The reader of TestReaderKeepsItsGeneration: it resolves the
		// current generation and holds it until its stdin closes.
		if _, err := store.Current(dir); err != nil {
			os.Exit(1)
		}
		os.Stdout.WriteString("pinned\n")
		io.Copy(io.Discard, os.Stdin)
		os.Exit(0)
	}
	if os.Getenv("EMPTIES_KILL_DIR") != "" {
		killedCommit()
	}
	if os.Getenv("EMPTIES_COMPACT_KILL_DIR") != "" {
		killedCompaction()
	}
	os.Exit(m.Run())
}

// Preview shows the next generation as it stands (tables written, and the
// current ones carried) without switching; a carried table written after it
// leaves the current generation's file alone, and one dropped after it is
// left out; Commit then switches everything at once.
func TestPreview(t *testing.T) {
	dir := t.TempDir()
	commitTables(t, dir, "old", "t1", "t2", "t3")
	oldFile := store.TableFiles(dir, "t2")[0]
	ds, err := store.Create(testStage, dir)
	if err != nil {
		t.Fatal(err)
	}
	defer ds.Close()
	writeTables(t, ds, "new", "t1")
	next, err := ds.Preview()
	if err != nil {
		t.Fatal(err)
	}
	for tb, want := range map[string]string{"t1": "new", "t2": "old", "t3": "old"} {
		rows, err := store.ReadAll[kv](next, tb)
		if err != nil || len(rows) != 1 || rows[0].Value != want {
			t.Errorf("preview %s: %v, %v; want %q", tb, rows, err, want)
		}
	}
	if rows, _ := store.ReadAll[kv](dir, "t1"); len(rows) != 1 || rows[0].Value != "old" {
		t.Errorf("current t1 before Commit: %v", rows)
	}
	writeTables(t, ds, "newer", "t2")
	ds.Drop("t3")
	if rows, err := store.ReadAll[kv](filepath.Dir(oldFile), "."); err != nil || len(rows) != 1 || rows[0].Value != "old" {
		t.Errorf("the current generation's t2 changed under a write after Preview: %v, %v", rows, err)
	}
	if err := ds.Commit(); err != nil {
		t.Fatal(err)
	}
	if got := store.Tables(dir); strings.Join(got, ",") != "t1,t2" {
		t.Errorf("tables after Commit %v, want t1,t2", got)
	}
	if rows, _ := store.ReadAll[kv](dir, "t2"); len(rows) != 1 || rows[0].Value != "newer" {
		t.Errorf("t2 after Commit: %v", rows)
	}
}
