package evallog

import (
	"bufio"
	"os"
	"strings"
	"testing"

	"empties/internal/testutil"
)

// The reductions cases of the malformed logs (testdata/malformed/
// reductions-*) open as the pinned inspect_ai reads them (VERDICTS.tsv,
// written by scripts/fixtures/malformed_logs.py from read_eval_log), but
// for the differences DIFFERENCES.tsv states (their items are not
// checked); a refusal names the reductions. Before the check, all twelve
// opened.
func TestReductionsAsInspectReadsThem(t *testing.T) {
	dir := testutil.Path(t, "testdata", "malformed")
	differs := map[string]bool{}
	for _, row := range tsvRows(t, dir+"/DIFFERENCES.tsv") {
		differs[row[0]] = true
	}
	n := 0
	for _, row := range tsvRows(t, dir+"/VERDICTS.tsv") {
		name, verdict := row[0], row[2]
		if !strings.HasPrefix(name, "reductions-") {
			continue
		}
		n++
		refuses := verdict == "refused"
		if differs[name] {
			refuses = false // empties reads it (DIFFERENCES.tsv)
		}
		l, err := Open(dir + "/" + name)
		switch {
		case refuses && err == nil:
			l.Close()
			t.Errorf("%s: opened, but inspect_ai refuses it (%s)", name, row[3])
		case !refuses && err != nil:
			t.Errorf("%s: %v, but inspect_ai reads it", name, err)
		case err != nil && !strings.Contains(err.Error(), "reductions"):
			t.Errorf("%s: the error does not name the reductions: %v", name, err)
		case err == nil:
			l.Close()
		}
	}
	if n != 12 {
		t.Fatalf("%d reductions cases in VERDICTS.tsv, want 12", n)
	}
}

// tsvRows are the rows of a tab-separated file of testdata, split at its
// tabs: its comments (# lines) and its header (the first line after them)
// left out.
func tsvRows(t *testing.T, path string) [][]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var rows [][]string
	header := true
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		switch {
		case strings.HasPrefix(sc.Text(), "#"):
		case header:
			header = false
		default:
			rows = append(rows, strings.Split(sc.Text(), "\t"))
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return rows
}
