package duck_test

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"empties/internal/duck"
)

// OpenReader gives the dataset's views behind the gate: a SELECT streams
// out of COPY, an EXPLAIN gives its plan, a statement that writes is
// refused before it runs, a file outside the dataset cannot be read, and
// Close leaves no spill folder behind. A folder without tables opens with
// none, for the caller to say so.
func TestReaderReadsOnly(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	writeTables(t, dir, map[string][2]string{
		"logs": {`INSERT INTO logs (log_id, path, set_status) VALUES ('A', '/a.eval', 'counted'), ('B', '/b.eval', 'superseded')`,
			"SELECT * FROM logs"},
	})
	outside := filepath.Join(t.TempDir(), "outside.csv")
	if err := os.WriteFile(outside, []byte("a\n1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	spill := t.TempDir() // os.MkdirTemp's folder, for this test alone
	t.Setenv("TMPDIR", spill)
	spills := func() []string {
		m, _ := filepath.Glob(filepath.Join(spill, "empties-sql.*"))
		return m
	}
	before := len(spills())
	r, err := duck.OpenReader(ctx, dir, duck.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(r.Tables, ",") != "logs" {
		t.Errorf("tables %v", r.Tables)
	}
	q := "SELECT log_id FROM logs ORDER BY log_id"
	if st, err := r.Check(ctx, q); err != nil || st.Kind == duck.Explain {
		t.Fatalf("%s: %+v %v", q, st, err)
	}
	var got strings.Builder
	if err := r.Copy(ctx, q, "FORMAT csv, HEADER true", func(rd io.Reader) error { _, err := io.Copy(&got, rd); return err }); err != nil || got.String() != "log_id\nA\nB\n" {
		t.Errorf("%s: %q %v", q, got.String(), err)
	}
	if st, err := r.Check(ctx, "EXPLAIN "+q); err != nil || st.Kind != duck.Explain {
		t.Errorf("EXPLAIN: %+v %v", st, err)
	} else if cols, rows, err := r.Explain(ctx, "EXPLAIN "+q); err != nil || len(cols) == 0 || len(rows) == 0 {
		t.Errorf("EXPLAIN: %v %d rows %v", cols, len(rows), err)
	}
	var refused *duck.Refused
	for _, s := range []string{"DROP VIEW logs", "COPY (SELECT 1) TO " + duck.Quote(outside+".2"), "SET threads = 1"} {
		if _, err := r.Check(ctx, s); !errors.As(err, &refused) {
			t.Errorf("%s: %v, want a refusal", s, err)
		}
	}
	read := "SELECT * FROM read_csv(" + duck.Quote(outside) + ")"
	if _, err := r.Check(ctx, read); err == nil {
		err = r.Copy(ctx, read, "FORMAT csv", func(rd io.Reader) error { _, err := io.Copy(io.Discard, rd); return err })
		if err == nil {
			t.Errorf("%s: read a file outside the dataset", read)
		}
	}
	if len(spills()) != before+1 {
		t.Errorf("%d spill folders while open, %d before", len(spills()), before)
	}
	if err := r.Close(); err != nil {
		t.Error(err)
	}
	if len(spills()) != before {
		t.Errorf("Close left its spill folder: %v", spills())
	}
	empty, err := duck.OpenReader(ctx, t.TempDir(), duck.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	defer empty.Close()
	if len(empty.Tables) != 0 {
		t.Errorf("an empty folder has tables %v", empty.Tables)
	}
}
