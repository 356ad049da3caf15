package duck_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"empties/internal/duck"
)

// A query larger than memory spills into the database's private folder in
// the system's temporary folder, never into the working directory (DuckDB's
// default for an in-memory database is .tmp there), and the folder goes
// when the database is closed.
func TestSpillsIntoAPrivateFolderRemovedOnClose(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	cwd := t.TempDir()
	t.Chdir(cwd)
	db, err := duck.Open("")
	if err != nil {
		t.Fatal(err)
	}
	var dir string
	if err := db.QueryRow("SELECT current_setting('temp_directory')").Scan(&dir); err != nil {
		t.Fatal(err)
	}
	if filepath.Dir(dir) != tmp || !strings.HasPrefix(filepath.Base(dir), "empties-duckdb.") {
		t.Fatalf("temp_directory is %s, want a folder empties-duckdb.* in %s", dir, tmp)
	}
	conn, err := db.Conn(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{"SET memory_limit = '64MB'", "SET threads = 1", "SET preserve_insertion_order = false"} {
		if _, err := conn.ExecContext(t.Context(), q); err != nil {
			t.Fatal(err)
		}
	}
	// a table of about 200 MB in a database of 64 MB: its blocks go to the
	// temporary files while it lives
	if _, err := conn.ExecContext(t.Context(), `CREATE TABLE big AS
	  SELECT i, md5(i::VARCHAR) || md5((i + 1)::VARCHAR) AS s FROM range(3000000) t(i) ORDER BY s`); err != nil {
		t.Fatal(err)
	}
	var n int64
	if err := conn.QueryRowContext(t.Context(), "SELECT count(*) FROM big").Scan(&n); err != nil {
		t.Fatal(err)
	}
	var spilled int64
	var where string
	if err := conn.QueryRowContext(t.Context(), "SELECT coalesce(sum(size), 0), coalesce(min(path), '') FROM duckdb_temporary_files()").Scan(&spilled, &where); err != nil {
		t.Fatal(err)
	}
	conn.Close()
	if n != 3000000 || spilled == 0 {
		t.Fatalf("%d rows, %d bytes spilled: the test did not make DuckDB spill", n, spilled)
	}
	if filepath.Dir(where) != dir {
		t.Errorf("DuckDB spilled to %s, not into %s", where, dir)
	}
	if entries, _ := os.ReadDir(cwd); len(entries) > 0 {
		t.Errorf("the query wrote into the working directory: %v", entries)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("the spill folder %s is still there after Close (%v)", dir, err)
	}
	t.Logf("spilled %d bytes into %s", spilled, dir)
}
