package ingest_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"empties/internal/ingest"
	"empties/internal/testutil"
)

// countPython counts the replies of a view file in the Python duckdb the
// notebooks use, and through pandas; "ERR: ..." when a query fails.
func countPython(t *testing.T, dataset string) string {
	t.Helper()
	py := testutil.Path(t, ".venv", "bin", "python")
	script := `import sys, duckdb, pandas
con = duckdb.connect(sys.argv[1] + "/empties.duckdb", read_only=True)
out = []
for q in (lambda: con.sql("SELECT count(*) FROM replies").fetchall()[0][0], lambda: len(con.sql("SELECT * FROM replies").df())):
    try:
        out.append(str(q()))
    except Exception as e:
        out.append("ERR: " + str(e))
out.append(str(len(pandas.read_parquet(sys.argv[1] + "/current/replies"))))
print("|".join(out))`
	out, err := exec.Command(py, "-c", script, dataset).CombinedOutput()
	if err != nil {
		t.Fatalf("python: %v\n%s", err, out)
	}
	return strings.TrimSpace(string(out))
}

func ingestInto(t *testing.T, out string, logs ...string) {
	t.Helper()
	if _, log, err := ingestWith(t, ingest.Config{Paths: logs, Out: out}); err != nil {
		t.Fatalf("%v\n%s", err, log)
	}
}

// TestMovedDatasetReadsItsOwnFiles: after `cp -a X Y; rm -rf X; ingest
// other --out X`, Y's view file never reads X's new rows: in the Python
// duckdb and through pandas it fails loudly until an empties command reads
// Y (re-ingesting it with nothing changed, here), which rewrites it; from
// then on it reads Y's own rows. The same for a move. (No DuckDB CLI that
// opens DuckDB 2.0 files is packaged; the Python duckdb is that engine.)
func TestMovedDatasetReadsItsOwnFiles(t *testing.T) {
	base := t.TempDir()
	x, y, z := filepath.Join(base, "X"), filepath.Join(base, "Y"), filepath.Join(base, "Z")
	logsA := testutil.Path(t, "testdata", "logs")
	ingestInto(t, x, logsA)
	rowsA := testutil.Query(t, x, "SELECT count(*) FROM replies")[0][0]
	if out, err := exec.Command("cp", "-a", x, y).CombinedOutput(); err != nil {
		t.Fatalf("cp -a: %v\n%s", err, out)
	}
	os.RemoveAll(x)
	// The original gone: the copy says what happened before DuckDB looks
	// for X's files (it used to fail with "No files found that match the
	// pattern X/...").
	if got := countPython(t, y); !strings.Contains(got, "ERR: Invalid Input Error: empties: this view file was written for the dataset at "+x) || strings.Contains(got, "No files found") {
		t.Fatalf("the copy's view file with its original gone read %q, want the error naming %s", got, x)
	}
	other := filepath.Join(base, "other")
	testutil.CopyFile(t, filepath.Join(logsA, "zstd-basic.eval"), filepath.Join(other, "zstd-basic.eval"))
	ingestInto(t, x, other)
	rowsX := testutil.Query(t, x, "SELECT count(*) FROM replies")[0][0]
	if rowsX == rowsA {
		t.Fatalf("the re-created X holds as many replies as the original (%s): the test cannot tell them apart", rowsA)
	}
	got := countPython(t, y)
	if strings.Contains(got, rowsX+"|") || !strings.Contains(got, "ERR: Invalid Input Error: empties: this view file was written for the dataset at "+x) {
		t.Fatalf("the copy's view file read %q, want a loud error naming %s (X holds %s replies now, the copy %s)", got, x, rowsX, rowsA)
	}
	if !strings.HasSuffix(got, "|"+rowsA) {
		t.Errorf("pandas on Y/current/replies: %q, want %s rows", got, rowsA)
	}
	// any empties command that reads Y repairs its view file
	ingestInto(t, y, logsA)
	if got := countPython(t, y); got != rowsA+"|"+rowsA+"|"+rowsA {
		t.Errorf("after an empties command on the copy: %q, want %s everywhere", got, rowsA)
	}
	if got := countPython(t, x); got != rowsX+"|"+rowsX+"|"+rowsX {
		t.Errorf("X: %q, want %s everywhere", got, rowsX)
	}
	// a move: loud until read by empties (here `empties sql`'s reader)
	if err := os.Rename(y, z); err != nil {
		t.Fatal(err)
	}
	if got := countPython(t, z); !strings.Contains(got, "ERR:") {
		t.Errorf("the moved dataset's view file read %q before a repair, want an error", got)
	}
	if n := testutil.Query(t, z, "SELECT count(*) FROM replies")[0][0]; n != rowsA {
		t.Errorf("empties on the moved dataset: %s replies, want %s", n, rowsA)
	}
	if got := countPython(t, z); got != rowsA+"|"+rowsA+"|"+rowsA {
		t.Errorf("the moved dataset after empties read it: %q, want %s everywhere", got, rowsA)
	}
}

// A view file read in place whose generation's files are gone (removed
// under a reader that took no pin) fails, naming the table, and never reads
// as an empty table: the view file reads with allow_empty so that a moved
// copy's check comes first.
func TestViewFileOfAGenerationGone(t *testing.T) {
	x := filepath.Join(t.TempDir(), "X")
	ingestInto(t, x, testutil.Path(t, "testdata", "logs"))
	parts, _ := filepath.Glob(filepath.Join(x, "current", "replies", "*.parquet"))
	if len(parts) == 0 {
		t.Fatal("no replies part files")
	}
	for _, p := range parts {
		os.Remove(p)
	}
	got := strings.Split(countPython(t, x), "|")
	for _, r := range got[:2] {
		if !strings.HasPrefix(r, "ERR: Invalid Input Error: empties: the files of table replies of generation ") {
			t.Errorf("the view file over removed files read %q, want the error naming the table", r)
		}
	}
}
