package ingest_test

import (
	"bufio"
	"context"
	"crypto/sha256"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"empties/internal/duck"
	"empties/internal/ingest"
	"empties/internal/sqlfmt"
	"empties/internal/testutil"
)

var update = flag.Bool("update", false, "rewrite testdata/rows.golden (only after bumping ingest.ExtractVersion)")

const rowsGolden = "testdata/rows.golden"

// TestRowsGolden holds a sum of every row ingest makes from the shared
// corpora and the fixtures, per table, with the ingest_version that made
// them. Rows that change under the same version would not be read again by
// an incremental ingest (it trusts ingest_version): the test fails until
// ExtractVersion is bumped, and -update refuses to record new rows under the
// old version.
func TestRowsGolden(t *testing.T) {
	corpora := map[string]string{
		"inspect-ai-tests": testutil.SharedCorpus(t),
		"wild":             testutil.WildCorpus(t),
		"fixtures":         testutil.Path(t, "testdata", "logs"),
	}
	var lines []string
	for _, name := range []string{"fixtures", "inspect-ai-tests", "wild"} {
		for _, l := range rowSums(t, corpora[name]) {
			lines = append(lines, name+"\t"+l)
		}
	}
	version := ingest.Version()
	got := "ingest_version\t" + version + "\n" + strings.Join(lines, "\n") + "\n"
	b, err := os.ReadFile(rowsGolden)
	if err != nil && !*update {
		t.Fatalf("%v (run `go test ./internal/ingest -run TestRowsGolden -update` to record it)", err)
	}
	want := string(b)
	wantVersion, _, _ := strings.Cut(strings.TrimPrefix(want, "ingest_version\t"), "\n")
	if got == want {
		return
	}
	if *update {
		if wantVersion == version && want != "" {
			t.Fatalf("the rows ingest makes changed but ingest_version did not (%s): bump ExtractVersion in internal/ingest/version.go first, so datasets read their logs again, then -update", version)
		}
		if err := os.WriteFile(rowsGolden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if wantVersion == version {
		t.Errorf("the rows ingest makes from the corpora changed, but logs.ingest_version did not (%s), so an incremental ingest would keep the old rows of every unchanged log.\nIf the change is deliberate, bump ExtractVersion in internal/ingest/version.go and run `go test ./internal/ingest -run TestRowsGolden -update`.\nChanged sums:\n%s", version, diffLines(want, got))
	} else {
		t.Errorf("ingest_version is %s, the golden's %s: run `go test ./internal/ingest -run TestRowsGolden -update` to record the rows of the new version.\nChanged sums:\n%s", version, wantVersion, diffLines(want, got))
	}
}

// rowSums ingests a folder of logs and returns, per table, its row count
// and the SHA-256 of its rows, sorted, with what depends on where the logs
// lie (log_id, a hash of the path; the path; the file's time) made
// relative to the folder, and ingest_version left out (the golden names it).
func rowSums(t *testing.T, logs string) []string {
	t.Helper()
	root, err := filepath.Abs(logs)
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "ds")
	err = ingest.Build(context.Background(), ingest.Config{Paths: []string{root}, Out: out})
	if err != nil && !strings.Contains(err.Error(), "could not be read") {
		t.Logf("ingest %s: %v", logs, err) // unreadable files are rows of ingest_errors
	}
	ctx := context.Background()
	db, tables, err := duck.OpenDataset(ctx, out)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ids := map[string]string{}
	_, rows, err := duck.Rows(ctx, db, "SELECT log_id, path FROM logs")
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rows {
		rel, _ := filepath.Rel(root, r[1].(string))
		ids[r[0].(string)] = "log:" + rel
	}
	var sums []string
	for _, table := range []string{"logs", "replies", "scores", "model_calls", "ingest_errors"} {
		if !contains(tables, table) {
			sums = append(sums, table+"\tabsent")
			continue
		}
		cols, rows, err := duck.Rows(ctx, db, "SELECT * EXCLUDE (ingest_version, modified) FROM "+duck.Ident(table))
		if err != nil {
			cols, rows, err = duck.Rows(ctx, db, "SELECT * FROM "+duck.Ident(table))
		}
		if err != nil {
			t.Fatal(err)
		}
		var lines []string
		for _, r := range rows {
			var b strings.Builder
			for i, v := range r {
				s := sqlfmt.Format(v)
				if rel, ok := ids[s]; ok {
					s = rel
				}
				fmt.Fprintf(&b, "%s=%s\t", cols[i], strings.ReplaceAll(s, root, "<logs>"))
			}
			lines = append(lines, b.String())
		}
		sort.Strings(lines)
		h := sha256.New()
		for _, l := range lines {
			fmt.Fprintln(h, l)
		}
		sums = append(sums, fmt.Sprintf("%s\t%d rows\t%x", table, len(rows), h.Sum(nil)))
	}
	return sums
}

func contains(s []string, v string) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

func diffLines(want, got string) string {
	seen := map[string]bool{}
	sc := bufio.NewScanner(strings.NewReader(want))
	for sc.Scan() {
		seen[sc.Text()] = true
	}
	var b strings.Builder
	sc = bufio.NewScanner(strings.NewReader(got))
	for sc.Scan() {
		if !seen[sc.Text()] {
			fmt.Fprintf(&b, "  now %s\n", sc.Text())
		}
	}
	return b.String()
}

// TestVersionIsTheRules: the version names the tables' columns, the
// classification rules and the extraction rules, nothing of the build, so a
// binary built from another commit with the same rules reads no file again.
func TestVersionIsTheRules(t *testing.T) {
	v := ingest.Version()
	if !strings.HasPrefix(v, "tables ") || !strings.HasSuffix(v, fmt.Sprintf(", extract %d", ingest.ExtractVersion)) || strings.Contains(v, "build") {
		t.Errorf("ingest_version %q: want tables, rules and extract only", v)
	}
	logs := testutil.Path(t, "testdata", "logs")
	out := filepath.Join(t.TempDir(), "ds")
	ingest.Build(context.Background(), ingest.Config{Paths: []string{logs}, Out: out})
	opened, hashed := ingest.CountReads(t)
	ingest.Build(context.Background(), ingest.Config{Paths: []string{logs}, Out: out})
	if opened.Load() != 0 || hashed.Load() != 0 {
		t.Errorf("a second ingest with the same version opened %d and hashed %d files", opened.Load(), hashed.Load())
	}
	for _, r := range testutil.Query(t, out, "SELECT DISTINCT ingest_version FROM logs") {
		if r[0] != v {
			t.Errorf("logs.ingest_version %q, want %q", r[0], v)
		}
	}
}
