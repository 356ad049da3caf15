package ingest_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"empties/internal/testutil"
)

// The view file ingest writes opens in the Python duckdb the notebooks use
// (requirements.txt pins it; the README says which DuckDB versions read the
// file): the views resolve and the joined rows are there.
func TestDuckDBViewFileOpensInPython(t *testing.T) {
	py := testutil.Path(t, ".venv", "bin", "python")
	if _, err := os.Stat(py); err != nil {
		t.Fatalf("the project's Python environment is missing (%s): run `make venv` from the repository root", py)
	}
	dir, _, _, err := runIngest(t, testutil.Path(t, "testdata", "logs", "zstd-basic.eval"))
	if err != nil {
		t.Fatal(err)
	}
	script := `import sys, duckdb
con = duckdb.connect(sys.argv[1], read_only=True)
n = con.sql("SELECT count(*) FROM replies JOIN logs USING (log_id) JOIN scores USING (log_id, sample_id, epoch)").fetchall()[0][0]
print(duckdb.__version__, n)`
	out, err := exec.Command(py, "-c", script, filepath.Join(dir, "empties.duckdb")).CombinedOutput()
	if err != nil {
		t.Fatalf("python duckdb could not read empties.duckdb: %v\n%s", err, out)
	}
	fields := strings.Fields(string(out))
	if len(fields) != 2 || fields[1] != "3" {
		t.Fatalf("python duckdb printed %q, want its version and 3 joined rows", out)
	}
	if !strings.HasPrefix(fields[0], "2.") {
		t.Errorf("python duckdb %s: requirements.txt pins duckdb 2.x, the driver's major version", fields[0])
	}
}
