package guard_test

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"empties/internal/guard"
	"empties/internal/testutil"
)

// writeReport fills a folder as a report does: an index and a table.
func writeReport(t *testing.T, dir, index string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Join(dir, "tables"), 0o755); err != nil {
		t.Fatal(err)
	}
	for name, body := range map[string]string{"index.md": index, "tables/t.csv": "a\n1\n"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func report(t *testing.T, out string, r guard.Rules, index string) error {
	t.Helper()
	f, err := guard.OpenFolder(out, "report", r)
	if err != nil {
		return err
	}
	defer f.Close()
	writeReport(t, f.Dir(), index)
	return f.Commit()
}

func read(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// noTemps fails if a temporary folder of the guard is left in dir.
func noTemps(t *testing.T, dir string) {
	t.Helper()
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.Contains(e.Name(), "empties-tmp-") {
			t.Errorf("temporary folder left behind: %s", filepath.Join(dir, e.Name()))
		}
	}
}

func refused(t *testing.T, err error, want string) {
	t.Helper()
	var r *guard.Refusal
	if !errors.As(err, &r) {
		t.Fatalf("want a refusal (%s), got %v", want, err)
	}
	if !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "nothing was changed") {
		t.Errorf("refusal %q does not say %q", err, want)
	}
}

func TestFolderNewThenReplaced(t *testing.T) {
	base := t.TempDir()
	user := testutil.NewUserTree(t, filepath.Join(base, "mine"))
	out := filepath.Join(base, "R")
	// a user's folder named R.tmp (the old temporary name) is not touched
	tmpUser := testutil.NewUserTree(t, filepath.Join(base, "R.tmp"))
	if err := report(t, out, guard.Rules{}, "one\n"); err != nil {
		t.Fatal(err)
	}
	if got := read(t, filepath.Join(out, "index.md")); got != "one\n" {
		t.Fatalf("index.md = %q", got)
	}
	if !strings.Contains(read(t, filepath.Join(out, guard.OutputMarker)), `"tables/t.csv"`) {
		t.Error("the listing does not name tables/t.csv")
	}
	// the second run replaces the content; a file only the first wrote goes
	if err := os.WriteFile(filepath.Join(out, "tables", "old.csv"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := report(t, out, guard.Rules{}, "two\n"); err == nil {
		t.Fatal("a file the user put into the report was not refused")
	}
	os.Remove(filepath.Join(out, "tables", "old.csv"))
	f, err := guard.OpenFolder(out, "report", guard.Rules{})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(f.Dir(), "index.md"), []byte("two\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := f.Commit(); err != nil {
		t.Fatal(err)
	}
	if got := read(t, filepath.Join(out, "index.md")); got != "two\n" {
		t.Errorf("index.md = %q", got)
	}
	if _, err := os.Stat(filepath.Join(out, "tables")); !os.IsNotExist(err) {
		t.Errorf("tables/, which only the first run wrote, is still there (%v)", err)
	}
	noTemps(t, base)
	noTemps(t, out)
	user.Check(t, "after two reports")
	tmpUser.Check(t, "after two reports")
}

func TestFolderRefusals(t *testing.T) {
	base := t.TempDir()
	user := testutil.NewUserTree(t, filepath.Join(base, "mine"))
	logs := filepath.Join(base, "logs")
	logsTree := testutil.NewUserTree(t, logs)
	ds := filepath.Join(base, "ds")
	for _, p := range []string{"gen/000001/replies", "other"} {
		os.MkdirAll(filepath.Join(ds, p), 0o755)
	}
	os.WriteFile(filepath.Join(ds, guard.DatasetMarker), []byte("{}\n"), 0o644)
	os.WriteFile(filepath.Join(ds, "gen/000001/replies/part-00000.parquet"), []byte("x"), 0o644)
	os.Symlink("gen/000001", filepath.Join(ds, "current"))
	dsTree := testutil.WitnessTree(t, ds)
	file := filepath.Join(base, "a-file")
	os.WriteFile(file, []byte("mine"), 0o644)
	dangling := filepath.Join(base, "dangling")
	os.Symlink(filepath.Join(base, "nowhere"), dangling)
	avoid := guard.Rules{Avoid: []string{logs}}
	for _, c := range []struct {
		name, out string
		rules     guard.Rules
		want      string
	}{
		{"a user's folder", filepath.Join(base, "mine"), guard.Rules{}, "holds files empties did not write"},
		{"the logs", logs, avoid, "which this command reads"},
		{"inside the logs", filepath.Join(logs, "report"), avoid, "lies inside"},
		{"the logs' parent", base, avoid, "holds " + logs},
		{"a dataset", ds, guard.Rules{}, "is an empties dataset"},
		{"DS/current", filepath.Join(ds, "current"), guard.Rules{}, "lies inside the empties dataset"},
		{"DS/gen", filepath.Join(ds, "gen"), guard.Rules{}, "lies inside the empties dataset"},
		{"DS/other/x", filepath.Join(ds, "other", "x"), guard.Rules{}, "lies inside the empties dataset"},
		{"a dataset to be", filepath.Join(base, "new-ds"), guard.Rules{Datasets: []string{filepath.Join(base, "new-ds")}}, "is an empties dataset"},
		{"a file", file, guard.Rules{}, "is a file"},
		{"a dangling symlink", dangling, guard.Rules{}, "which does not exist"},
		{"the root", "/", guard.Rules{}, "root of the file system"},
	} {
		t.Run(c.name, func(t *testing.T) {
			f, err := guard.OpenFolder(c.out, "report", c.rules)
			if err == nil {
				f.Close()
			}
			refused(t, err, c.want)
		})
	}
	user.Check(t, "refusals")
	logsTree.Check(t, "refusals")
	dsTree.Check(t, "refusals")
	noTemps(t, base)
	// a folder of its own at a dataset's top is fine
	if err := report(t, filepath.Join(ds, "report"), guard.Rules{}, "x\n"); err != nil {
		t.Errorf("DS/report: %v", err)
	}
}

func TestFolderDot(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	for _, index := range []string{"one\n", "two\n"} {
		if err := report(t, ".", guard.Rules{}, index); err != nil {
			t.Fatal(err)
		}
		// the working folder is the same folder, holding the report
		if got := read(t, "index.md"); got != index {
			t.Errorf("./index.md = %q, want %q", got, index)
		}
	}
	noTemps(t, dir)
	os.WriteFile("mine.txt", []byte("mine"), 0o644)
	_, err := guard.OpenFolder(".", "report", guard.Rules{})
	refused(t, err, "mine.txt")
}

func TestFolderOtherCommand(t *testing.T) {
	out := filepath.Join(t.TempDir(), "R")
	if err := report(t, out, guard.Rules{}, "x\n"); err != nil {
		t.Fatal(err)
	}
	_, err := guard.OpenFolder(out, "sample", guard.Rules{})
	refused(t, err, "holds the output of `empties report`")
}

func TestFolderMergeKeepsOthers(t *testing.T) {
	out := filepath.Join(t.TempDir(), "review")
	for _, seed := range []string{"1", "2", "1"} {
		f, err := guard.OpenFolder(out, "sample", guard.Rules{})
		if err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(f.Dir(), "review-seed"+seed+".html"), []byte(seed), 0o644)
		if err := f.Merge(); err != nil {
			t.Fatal(err)
		}
	}
	for _, n := range []string{"review-seed1.html", "review-seed2.html"} {
		if _, err := os.Stat(filepath.Join(out, n)); err != nil {
			t.Error(err)
		}
	}
}

func TestFolderInterrupted(t *testing.T) {
	base := t.TempDir()
	out := filepath.Join(base, "R")
	// a writer killed while building a new folder leaves its temporary
	// folder; one whose writer is alive is not removed
	dead, err := guard.OpenFolder(out, "report", guard.Rules{})
	if err != nil {
		t.Fatal(err)
	}
	writeReport(t, dead.Dir(), "dead\n")
	guard.Abandon(dead)
	// something of the user's under a temporary-looking name, without the mark
	lookalike := filepath.Join(base, ".R.empties-tmp-12345")
	lookTree := testutil.NewUserTree(t, lookalike)
	alive, err := guard.OpenFolder(filepath.Join(base, "S"), "report", guard.Rules{})
	if err != nil {
		t.Fatal(err)
	}
	defer alive.Close()
	if _, err := guard.OpenFolder(filepath.Join(base, "S"), "report", guard.Rules{}); err == nil {
		t.Error("a second writer of S while the first is alive was not refused")
	}
	if err := report(t, out, guard.Rules{}, "next\n"); err != nil {
		t.Fatal(err)
	}
	entries, _ := os.ReadDir(base)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if len(names) != 3 || !strings.HasPrefix(names[1], ".S.empties-tmp-") {
		t.Errorf("left in %s: %v; want R, the live writer's temporary of S and the user's lookalike", base, names)
	}
	lookTree.Check(t, "cleaning leftovers")
	// an existing folder: a writer killed half-way through its switch
	f, err := guard.OpenFolder(out, "report", guard.Rules{})
	if err != nil {
		t.Fatal(err)
	}
	writeReport(t, f.Dir(), "killed\n")
	guard.Abandon(f)
	if err := report(t, out, guard.Rules{}, "after\n"); err != nil {
		t.Fatal(err)
	}
	noTemps(t, out)
}

func TestFilesMarked(t *testing.T) {
	dir := t.TempDir()
	mark := []byte("<!-- written by empties select -->\n")
	p := filepath.Join(dir, "P.md")
	write := func(body string) error {
		s, err := guard.OpenFiles(guard.Rules{}, guard.File{Path: p, Mark: mark})
		if err != nil {
			return err
		}
		defer s.Close()
		if err := s.Write(p, func(w io.Writer) error { _, err := io.WriteString(w, body); return err }); err != nil {
			return err
		}
		return s.Commit()
	}
	// a symlink planted at the old temporary name is never followed
	notes := filepath.Join(dir, "notes.txt")
	os.WriteFile(notes, []byte("my notes"), 0o644)
	os.Symlink(notes, p+".tmp")
	if err := write(string(mark) + "one"); err != nil {
		t.Fatal(err)
	}
	if err := write(string(mark) + "two"); err != nil {
		t.Fatal(err)
	}
	if got := read(t, p); got != string(mark)+"two" {
		t.Errorf("P.md = %q", got)
	}
	if got := read(t, notes); got != "my notes" {
		t.Errorf("notes.txt = %q", got)
	}
	if err := write("no mark"); err == nil || !strings.Contains(err.Error(), "does not begin with its mark") {
		t.Errorf("content without the mark: %v", err)
	}
	noTemps(t, dir)
	// a user's file, a symlink, a folder at the name are refused
	user := filepath.Join(dir, "U.md")
	os.WriteFile(user, []byte("# my plan\n"), 0o644)
	link := filepath.Join(dir, "L.md")
	os.Symlink(notes, link)
	folder := filepath.Join(dir, "F.md")
	os.Mkdir(folder, 0o755)
	tree := testutil.WitnessTree(t, dir)
	for path, want := range map[string]string{user: "was not written by empties", link: "is a symlink", folder: "is a folder"} {
		_, err := guard.OpenFiles(guard.Rules{}, guard.File{Path: p, Mark: mark}, guard.File{Path: path, Mark: mark})
		refused(t, err, want)
	}
	tree.Check(t, "refused files")
}

func TestWriteFile(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "marker.json")
	victim := filepath.Join(dir, "victim")
	os.WriteFile(victim, []byte("v"), 0o644)
	os.Symlink(victim, p+".tmp")
	for _, body := range []string{"a", "b"} {
		if err := guard.WriteFile(p, true, func(w io.Writer) error { _, err := io.WriteString(w, body); return err }); err != nil {
			t.Fatal(err)
		}
		if got := read(t, p); got != body {
			t.Errorf("got %q, want %q", got, body)
		}
	}
	if got := read(t, victim); got != "v" {
		t.Errorf("victim = %q", got)
	}
	if err := guard.WriteFile(p, false, func(w io.Writer) error { return errors.New("disk full") }); err == nil {
		t.Error("a failed fill was not an error")
	}
	if got := read(t, p); got != "b" {
		t.Errorf("a failed write changed the file: %q", got)
	}
	noTemps(t, dir)
}

func TestRemoveInside(t *testing.T) {
	base := t.TempDir()
	victims := testutil.NewUserTree(t, filepath.Join(base, "victim"))
	root := filepath.Join(base, "gen", "000001")
	os.MkdirAll(filepath.Join(root, "t"), 0o755)
	os.WriteFile(filepath.Join(root, "t", "part.parquet"), []byte("x"), 0o644)
	os.Symlink(filepath.Join(base, "victim"), filepath.Join(root, "linked"))
	os.MkdirAll(filepath.Join(root, "s"), 0o755)
	os.Symlink(filepath.Join(base, "victim", "notes.txt"), filepath.Join(root, "s", "notes.txt"))
	for _, rel := range []string{
		"../../victim/notes.txt", filepath.Join(base, "victim", "notes.txt"), "linked/notes.txt",
		"s/notes.txt", "t/../../../victim/notes.txt", "", ".", "linked",
	} {
		if err := guard.RemoveFile(root, rel); err == nil {
			t.Errorf("RemoveFile(%q) was not refused", rel)
		}
		if err := guard.RemoveDir(root, rel); err == nil && rel != "." {
			t.Errorf("RemoveDir(%q) was not refused", rel)
		}
	}
	victims.Check(t, "crafted names")
	if err := guard.RemoveFile(root, "t/part.parquet"); err != nil {
		t.Error(err)
	}
	if err := guard.RemoveDir(root, "t"); err != nil {
		t.Error(err)
	}
	// a generation folder that is a symlink is not walked
	os.Symlink(filepath.Join(base, "victim"), filepath.Join(base, "gen", "000002"))
	if err := guard.RemoveFile(filepath.Join(base, "gen", "000002"), "notes.txt"); err == nil {
		t.Error("a symlinked root was walked")
	}
	victims.Check(t, "symlinked root")
}

func TestCheckDataset(t *testing.T) {
	base := t.TempDir()
	logs := filepath.Join(base, "logs")
	os.Mkdir(logs, 0o755)
	for out, want := range map[string]string{
		filepath.Join(logs, "ds"): "lies inside",
		base:                      "holds",
		logs:                      "which this command reads",
	} {
		_, err := guard.CheckDataset(out, guard.Rules{Avoid: []string{logs}})
		refused(t, err, want)
	}
	if _, err := guard.CheckDataset(filepath.Join(base, "ds"), guard.Rules{Avoid: []string{logs, "s3://bucket/x"}}); err != nil {
		t.Error(err)
	}
}
