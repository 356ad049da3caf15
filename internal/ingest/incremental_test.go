package ingest_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"empties/internal/cliutil"
	"empties/internal/ingest"
	"empties/internal/store"
	"empties/internal/testutil"
)

// reingest runs an ingest of logs into out (incremental unless full) and
// returns its result; a partial failure (files that cannot be read) is
// expected of the folders here and not an error.
func reingest(t *testing.T, logs, out string, full, allAttempts bool) *ingest.Result {
	t.Helper()
	return ingestOK(t, ingest.Config{Paths: []string{logs}, Out: out, Workers: 2, Full: full, AllAttempts: allAttempts})
}

// ingestOK runs an ingest of cfg that may leave files it could not read
// (a partial failure), and returns its result.
func ingestOK(t *testing.T, cfg ingest.Config) *ingest.Result {
	t.Helper()
	res, log, err := ingestWith(t, cfg)
	var partial *cliutil.PartialError
	if err != nil && !errors.As(err, &partial) {
		t.Fatalf("ingest %s: %v\n%s", strings.Join(cfg.Paths, " "), err, log)
	}
	return res
}

// sameAsFull checks that every table of ingest in ds holds exactly the rows
// a full ingest of logs into a new dataset writes: logs and ingest_errors in
// the same order, the three big tables as the same multiset of rows (an
// incremental ingest appends the rows of the files it reads).
func sameAsFull(t *testing.T, step, logs, ds string, allAttempts bool, counters ...interface{ Swap(int64) int64 }) {
	t.Helper()
	full := t.TempDir()
	reingest(t, logs, full, true, allAttempts)
	for _, c := range counters {
		c.Swap(0) // the full ingest's reads are not the next step's
	}
	for _, q := range []string{
		"SELECT * FROM logs",
		"SELECT * FROM ingest_errors",
		"SELECT * FROM replies ORDER BY ALL",
		"SELECT * FROM scores ORDER BY ALL",
		"SELECT * FROM model_calls ORDER BY ALL",
	} {
		got, want := testutil.Query(t, ds, q), testutil.Query(t, full, q)
		if len(want) == 0 && !strings.Contains(q, "ingest_errors") {
			t.Fatalf("%s: %s: the full ingest has no rows", step, q)
		}
		if g, w := fmt.Sprint(got), fmt.Sprint(want); g != w {
			t.Errorf("%s: %s differs from a full ingest (%d rows, want %d)\n got %.600s\nwant %.600s", step, q, len(got), len(want), g, w)
		}
	}
}

// expect checks the incremental counts of a run and the files opened and
// hashed since the last call.
func expect(t *testing.T, step string, res *ingest.Result, want ingest.Incremental, opened, hashed int64, gotOpened, gotHashed interface{ Swap(int64) int64 }) {
	t.Helper()
	if res.Incremental == nil {
		t.Errorf("%s: not an incremental run, want %+v", step, want)
	} else if *res.Incremental != want {
		t.Errorf("%s: incremental %+v, want %+v", step, *res.Incremental, want)
	}
	if o := gotOpened.Swap(0); o != opened {
		t.Errorf("%s: %d log files opened, want %d", step, o, opened)
	}
	if h := gotHashed.Swap(0); h != hashed {
		t.Errorf("%s: %d files hashed, want %d", step, h, hashed)
	}
}

// An ingest into a dataset reads only what is new or changed, and every
// step leaves the tables a full ingest of the folder writes: a file touched
// (hashed, not read), a retry attempt added that supersedes a kept log, a
// log rewritten at the same path, a file removed, the retry removed again
// (the older attempt counts again), --all-attempts switched on (no file
// read). A log with a missing member keeps its ingest_errors row while it is
// unchanged; a file that cannot be read is tried again on every run.
func TestIncrementalIngestMatchesFull(t *testing.T) {
	logs := testutil.LogSetStudy(t)
	newer := filepath.Join(logs, "2026-12-01T10-02-49-00-00_retried-task_XdxwMk6pvbbudqbeD2Ec8n.eval")
	older := filepath.Join(logs, "2026-12-01T10-02-48-00-00_retried-task_XdxwMk6pvbbudqbeD2Ec8n.eval")
	held := filepath.Join(t.TempDir(), "held.eval")
	if err := os.Rename(newer, held); err != nil {
		t.Fatal(err)
	}
	fx := filepath.Join(logs, "fixtures")
	for _, f := range []string{"zstd-basic.eval", "epochs.eval", "string-ids.json"} {
		testutil.CopyFile(t, testutil.Path(t, "testdata", "logs", f), filepath.Join(fx, f))
	}
	b, err := os.ReadFile(testutil.Path(t, "testdata", "logs", "epochs.eval"))
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(fx, "missing-member.eval"), testutil.WithoutMember(t, b, "samples/3_epoch_2.json"), 0o644)
	os.WriteFile(filepath.Join(fx, "broken.eval"), []byte("PK\x03\x04 not a zip"), 0o644)
	ds := t.TempDir()
	opened, hashed := ingest.CountReads(t)

	res := reingest(t, logs, ds, false, false)
	if res.Incremental != nil {
		t.Errorf("first ingest into a new dataset is an incremental run: %+v", *res.Incremental)
	}
	n := opened.Swap(0)
	hashed.Swap(0)
	sameAsFull(t, "first ingest", logs, ds, false, opened, hashed)

	m := int(n)
	res = reingest(t, logs, ds, false, false)
	expect(t, "unchanged", res, ingest.Incremental{New: 1, Unchanged: m - 1}, 1, 0, opened, hashed)
	if res.Committed {
		t.Error("unchanged: the run committed, want nothing changed")
	}
	if r := testutil.Query(t, ds, "SELECT count(*) FROM ingest_errors WHERE path LIKE '%missing-member.eval' AND member = 'samples/3_epoch_2.json'"); r[0][0] != "1" {
		t.Errorf("the missing member's ingest_errors row is not kept: %v", r)
	}
	sameAsFull(t, "unchanged", logs, ds, false, opened, hashed)

	later := time.Now().Add(-time.Hour).Truncate(time.Second)
	if err := os.Chtimes(filepath.Join(fx, "string-ids.json"), later, later); err != nil {
		t.Fatal(err)
	}
	res = reingest(t, logs, ds, false, false)
	expect(t, "touched", res, ingest.Incremental{New: 1, Unchanged: m - 1, Hashed: 1}, 1, 1, opened, hashed)
	if r := testutil.Query(t, ds, "SELECT epoch_us(modified) FROM logs WHERE path LIKE '%string-ids.json'"); r[0][0] != fmt.Sprint(later.UnixMicro()) {
		t.Errorf("touched: logs.modified is %v, want %d", r, later.UnixMicro())
	}
	sameAsFull(t, "touched", logs, ds, false, opened, hashed)

	testutil.CopyFile(t, held, newer)
	mt := time.Unix(0, 1796119368962674116) // MTIMES.tsv
	os.Chtimes(newer, mt, mt)
	res = reingest(t, logs, ds, false, false)
	expect(t, "retry added", res, ingest.Incremental{New: 2, Unchanged: m - 1}, 2, 0, opened, hashed)
	r := testutil.Query(t, ds, "SELECT o.set_status, o.superseded_reason, o.superseded_by = nw.log_id FROM logs o, logs nw WHERE o.path = ? AND nw.path = ?", older, newer)
	if len(r) != 1 || strings.Join(r[0], ",") != "superseded,retried,true" {
		t.Errorf("retry added: the kept older attempt is %v, want superseded,retried by the new one", r)
	}
	sameAsFull(t, "retry added", logs, ds, false, opened, hashed)

	b, err = os.ReadFile(testutil.Path(t, "testdata", "logs", "deflate.eval"))
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(fx, "epochs.eval"), b, 0o644)
	res = reingest(t, logs, ds, false, false)
	expect(t, "rewritten", res, ingest.Incremental{New: 1, Changed: 1, Unchanged: m - 1, Hashed: 1}, 2, 1, opened, hashed)
	sameAsFull(t, "rewritten", logs, ds, false, opened, hashed)

	os.Remove(filepath.Join(fx, "zstd-basic.eval"))
	res = reingest(t, logs, ds, false, false)
	expect(t, "removed", res, ingest.Incremental{New: 1, Unchanged: m - 1, Removed: 1}, 1, 0, opened, hashed)
	if r := testutil.Query(t, ds, "SELECT count(*) FROM replies JOIN logs USING (log_id) WHERE path LIKE '%zstd-basic.eval'"); r[0][0] != "0" {
		t.Errorf("removed: %s replies of the removed log remain", r[0][0])
	}
	sameAsFull(t, "removed", logs, ds, false, opened, hashed)

	os.Remove(newer)
	res = reingest(t, logs, ds, false, false)
	expect(t, "retry removed", res, ingest.Incremental{New: 1, Unchanged: m - 2, Removed: 1}, 1, 0, opened, hashed)
	if r := testutil.Query(t, ds, "SELECT set_status FROM logs WHERE path = ?", older); len(r) != 1 || r[0][0] != "counted" {
		t.Errorf("retry removed: the older attempt is %v, want counted again", r)
	}
	sameAsFull(t, "retry removed", logs, ds, false, opened, hashed)

	res = reingest(t, logs, ds, false, true)
	expect(t, "--all-attempts", res, ingest.Incremental{New: 1, Unchanged: m - 2}, 1, 0, opened, hashed)
	if r := testutil.Query(t, ds, "SELECT count(*) FROM logs WHERE set_status <> 'counted'"); r[0][0] != "0" {
		t.Errorf("--all-attempts: %s logs not counted", r[0][0])
	}
	sameAsFull(t, "--all-attempts", logs, ds, true, opened, hashed)
}

// A second ingest of an unchanged folder opens no log and hashes no file,
// and leaves the dataset's generation, later stages' tables included, as it
// was; a touched file is hashed, not read, and the later tables stay; a new
// file removes them, since they were computed without it.
func TestIncrementalUnchangedReadsNothing(t *testing.T) {
	logs := t.TempDir()
	for _, f := range []string{"zstd-basic.eval", "epochs.eval", "pools-tools.eval", "string-ids.json"} {
		testutil.CopyFile(t, testutil.Path(t, "testdata", "logs", f), filepath.Join(logs, f))
	}
	ds := t.TempDir()
	opened, hashed := ingest.CountReads(t)
	reingest(t, logs, ds, false, false)
	if o := opened.Swap(0); o != 4 {
		t.Fatalf("first ingest opened %d logs, want 4", o)
	}
	// a table a later stage owns, as rescore would leave it
	plant(t, ds, "headlines")
	gen := currentGen(t, ds)

	res := reingest(t, logs, ds, false, false)
	expect(t, "unchanged", res, ingest.Incremental{Unchanged: 4}, 0, 0, opened, hashed)
	if g := currentGen(t, ds); g != gen {
		t.Errorf("unchanged: the dataset switched generation (%s -> %s)", gen, g)
	}
	if !store.HasTable(ds, "headlines") {
		t.Error("unchanged: a later stage's table was removed")
	}

	later := time.Now().Add(time.Minute)
	os.Chtimes(filepath.Join(logs, "epochs.eval"), later, later)
	res = reingest(t, logs, ds, false, false)
	expect(t, "touched", res, ingest.Incremental{Unchanged: 4, Hashed: 1}, 0, 1, opened, hashed)
	if !store.HasTable(ds, "headlines") {
		t.Error("touched: a later stage's table was removed, though no row changed")
	}

	testutil.CopyFile(t, testutil.Path(t, "testdata", "logs", "reasoning.eval"), filepath.Join(logs, "reasoning.eval"))
	res = reingest(t, logs, ds, false, false)
	expect(t, "added", res, ingest.Incremental{New: 1, Unchanged: 4}, 1, 0, opened, hashed)
	if store.HasTable(ds, "headlines") {
		t.Error("added: the later stage's table computed without the new log survived")
	}
	if !res.Committed || !slices.Equal(res.Dropped, []string{"headlines"}) {
		t.Errorf("added: committed %v, removed tables %v, want the tables computed from the old rows (headlines)", res.Committed, res.Dropped)
	}

	res = reingest(t, logs, ds, true, false)
	if o := opened.Swap(0); res.Incremental != nil || o != 5 {
		t.Errorf("--full did not read every file: incremental %+v, %d files opened", res.Incremental, o)
	}
}

// plant commits a table named table into ds holding a copy of its logs
// file, standing for a later stage's output.
func plant(t *testing.T, ds, table string) {
	t.Helper()
	b, err := os.ReadFile(store.TableFiles(ds, "logs")[0])
	if err != nil {
		t.Fatal(err)
	}
	d, err := store.Create(testutil.Fixture, ds)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	td, _ := d.TableDir(table)
	os.WriteFile(filepath.Join(td, "part-00000.parquet"), b, 0o644)
	if err := d.Commit(); err != nil {
		t.Fatal(err)
	}
}

func currentGen(t *testing.T, ds string) string {
	t.Helper()
	g, err := os.Readlink(filepath.Join(ds, store.CurrentLink))
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// compactionFixtures are the logs the compaction test adds one run at a
// time, and the order their names sort in: each new log lands between the
// ones already in the dataset, not after them.
var compactionFixtures = []string{
	"zstd-basic.eval", "epochs.eval", "attachments.eval", "deflate.eval", "dict-scores.eval",
	"grader-role.eval", "limits.eval", "nan-scores.eval", "pools-tools.eval", "reasoning.eval",
	"sample-error.eval", "slash-ids.eval", "stored.eval", "string-ids.json", "int-ids.json",
	"multiframe-zstd.eval", "output-without-call.eval", "grader-no-role.eval",
}

var bigTables = []string{"replies", "scores", "model_calls"}

// A study's dataset grown by many small incremental runs (one log added per
// run, in the middle of the path order; one log rewritten and one removed
// on the way) keeps at most store.MaxSmallParts part files per table: the
// run that would leave more rewrites them (and says so), and the table it
// compacts is then the files a full ingest of the folder writes, byte for
// byte, read by `SELECT *` in the same row order. No run modifies a file of
// the generation it starts from (they are hard-linked into the new one).
// --compact rewrites every part of an unchanged dataset, keeps the later
// stages' tables (no row changed), and again leaves a full ingest's files.
func TestIncrementalCompactionMatchesFull(t *testing.T) {
	logs := t.TempDir()
	name := func(i int) string {
		// 0, 17, 1, 16, 2, 15, ...: each name sorts between earlier ones
		pos := i / 2
		if i%2 == 1 {
			pos = len(compactionFixtures) - 1 - i/2
		}
		return filepath.Join(logs, fmt.Sprintf("%02d-%s", pos, compactionFixtures[i]))
	}
	add := func(i int) {
		testutil.CopyFile(t, testutil.Path(t, "testdata", "logs", compactionFixtures[i]), name(i))
	}
	add(0)
	add(1)
	ds := t.TempDir()
	reingest(t, logs, ds, false, false)
	compactions := 0
	for i := 2; i < len(compactionFixtures); i++ {
		step := "add " + compactionFixtures[i]
		add(i)
		switch i {
		case 6: // a log rewritten at the same path: its rows leave their part
			b, err := os.ReadFile(testutil.Path(t, "testdata", "logs", "recovered.eval"))
			if err != nil {
				t.Fatal(err)
			}
			os.WriteFile(name(2), b, 0o644)
		case 9:
			os.Remove(name(3))
		}
		w := witness(t, ds)
		res := reingest(t, logs, ds, false, false)
		w.Check(t, step)
		compacted := compactedTables(res)
		for _, table := range bigTables {
			n := len(store.TableFiles(ds, table))
			if n > store.MaxSmallParts {
				t.Errorf("%s: %s holds %d part files, more than %d", step, table, n, store.MaxSmallParts)
			}
			if compacted[table] && n != 1 {
				t.Errorf("%s: %s compacted into %d parts, want 1", step, table, n)
			}
		}
		if len(compacted) == 0 {
			continue
		}
		compactions++
		full := t.TempDir()
		reingest(t, logs, full, true, false)
		for table := range compacted {
			sameFiles(t, step, table, ds, full)
		}
		sameAsFull(t, step, logs, ds, false)
	}
	if compactions == 0 {
		t.Fatal("no run compacted a table")
	}

	plant(t, ds, "later_stage") // not a table of schema/: DuckDB views read it as it is
	w := witness(t, ds)
	res := ingestOK(t, ingest.Config{Paths: []string{logs}, Out: ds, Workers: 2, Compact: true})
	w.Check(t, "--compact")
	if c := compactedTables(res); len(c) != len(bigTables) {
		t.Errorf("--compact compacted %v, want every big table: %+v", c, res.Compacted)
	}
	if !store.HasTable(ds, "later_stage") {
		t.Error("--compact removed a later stage's table, though no row changed")
	}
	full := t.TempDir()
	reingest(t, logs, full, true, false)
	for _, table := range bigTables {
		sameFiles(t, "--compact", table, ds, full)
	}
	sameAsFull(t, "--compact", logs, ds, false)

	res = reingest(t, logs, ds, false, false)
	if res.Committed || len(res.Compacted) > 0 {
		t.Errorf("unchanged after --compact: committed %v, compacted %+v; want nothing changed and nothing compacted", res.Committed, res.Compacted)
	}
}

// compactedTables names the tables a run compacted.
func compactedTables(res *ingest.Result) map[string]bool {
	got := map[string]bool{}
	for _, c := range res.Compacted {
		got[c.Table] = true
	}
	return got
}

// sameFiles checks that a table of ds is the files of the full ingest full,
// name for name and byte for byte, and reads back in the same row order.
func sameFiles(t *testing.T, step, table, ds, full string) {
	t.Helper()
	got, want := partSums(t, ds, table), partSums(t, full, table)
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("%s: %s part files %v, want the full ingest's %v", step, table, got, want)
	}
	q := "SELECT * FROM " + table
	if g, w := fmt.Sprint(testutil.Query(t, ds, q)), fmt.Sprint(testutil.Query(t, full, q)); g != w {
		t.Errorf("%s: %s differs from a full ingest's, row order included", step, q)
	}
}

func partSums(t *testing.T, ds, table string) map[string]string {
	t.Helper()
	return testutil.FileSums(t, store.TableFiles(ds, table))
}

// witness witnesses the current generation of the dataset ds: a file of it
// a later run wrote into in place, rather than beside, is then reported.
func witness(t *testing.T, ds string) testutil.Witness {
	t.Helper()
	cur, err := store.Current(ds)
	if err != nil {
		t.Fatal(err)
	}
	return testutil.NewWitness(t, cur)
}
