package ingest_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"empties/internal/testutil"
)

// What a log does not have is NULL in every row, whatever the rows before
// it held: a whole file's error after a member's has member NULL, and a log
// outside an eval set after one inside has eval_set_id NULL. Before each
// optional text column was a pointer, parquet-go wrote "" for both (for
// rows absent, present, absent, absent it reads back NULL, value, "", "").
func TestAbsentIsNullAfterAValue(t *testing.T) {
	corpus := testutil.SharedCorpus(t)
	tmp := t.TempDir()
	broken := func(name string) string {
		p := filepath.Join(tmp, name)
		if err := os.WriteFile(p, []byte("not a zip"), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	// Every file sits in tmp under a name that fixes its place in path
	// order, which is the order ingest writes rows in: where the corpus and
	// the temporary folder sit must not reorder them.
	copied := func(name, src string) string {
		body, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(tmp, name)
		if err := os.WriteFile(p, body, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	holed := filepath.Join(tmp, "2-holed.eval")
	testutil.DropMember(t, filepath.Join(corpus, "scorer", "logs", "2025-02-11T15-18-04-05-00_popularity_mj7khqpMM4GBCfVQozKgzB.eval"), holed, "samples/7_epoch_1.json")
	// Files in this order: ingest_errors gets a whole file's error, a
	// member's, then two whole files'; logs gets a log outside an eval set,
	// one inside (eval_set_id set), then two outside.
	paths := []string{broken("1-broken.eval"), holed,
		copied("3-in-set.eval", filepath.Join(corpus, "log", "test_eval_log", "log_message_deduplication.eval")),
		broken("4-broken.eval"), broken("5-broken.eval"),
		copied("6-popularity.eval", filepath.Join(corpus, "scorer", "logs", "2025-02-11T15-17-00-05-00_popularity_dPiJifoWeEQBrfWsAopzWr.eval")),
		copied("7-read-sample.eval", filepath.Join(corpus, "log", "test_eval_log", "log_read_sample.eval"))}
	dir, _, _, _ := runIngest(t, paths...) // a partial failure: the broken files and the hole
	show := func(q string) string {
		var out []string
		for _, r := range testutil.Query(t, dir, q) {
			out = append(out, strings.Join(r, " "))
		}
		return strings.Join(out, "; ")
	}
	got := show(`SELECT replace(path, '` + tmp + `/', ''), coalesce(member, 'NULL') FROM ingest_errors ORDER BY path`)
	if want := "1-broken.eval NULL; 2-holed.eval samples/7_epoch_1.json; 4-broken.eval NULL; 5-broken.eval NULL"; got != want {
		t.Errorf("ingest_errors (path, member):\n%s\nwant\n%s", got, want)
	}
	got = show(`SELECT coalesce(eval_set_id, 'NULL') FROM logs ORDER BY path`) // path order is write order
	if want := "NULL; eLdurCNhVzAVG9EJNXf7Em; NULL; NULL"; got != want {
		t.Errorf("logs.eval_set_id, by path: %s, want %s", got, want)
	}
	// And no other column that reads an absent field as NULL holds "".
	for _, q := range []string{
		`SELECT count(*) FILTER (eval_id = '' OR run_id = '' OR eval_set_id = '' OR task_id = '' OR inspect_ai_version = '' OR dataset_name = '') FROM logs`,
		`SELECT count(*) FILTER (eval_id = '' OR sample_uuid = '') FROM replies`,
	} {
		if n := show(q); n != "0" {
			t.Errorf("%s: %s rows hold \"\"", q, n)
		}
	}
}
