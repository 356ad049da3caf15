package ingest_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"empties/internal/cliutil"
	"empties/internal/duck"
	"empties/internal/ingest"
	"empties/internal/ingest/ingesttest"
	"empties/internal/store"
	"empties/internal/testutil"
	"empties/schema"
)

// Every real log of the shared corpus ingests, with the sample counts of its
// SAMPLES.tsv, and one reply row per sample.
func TestSharedCorpusIngests(t *testing.T) {
	corpus := testutil.SharedCorpus(t)
	dir, _, stderr, err := runIngest(t, corpus)
	if err != nil {
		t.Fatalf("ingest: %v\n%s", err, stderr)
	}
	tsv, err := os.ReadFile(filepath.Join(corpus, "SAMPLES.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(tsv)), "\n")[1:]
	for _, line := range lines {
		f := strings.Split(line, "\t")
		file, format, version, status, samples := f[0], f[1], f[2], f[3], f[4]
		t.Run(file, func(t *testing.T) {
			rows := testutil.Query(t, dir, `SELECT format, version, status, sample_count,
			    (SELECT count(*) FROM replies r WHERE r.log_id = l.log_id)
			  FROM logs l WHERE path = ?`, filepath.Join(corpus, file))
			if len(rows) != 1 {
				t.Fatalf("logs rows for %s: %d", file, len(rows))
			}
			want := []string{format, version, status, samples, samples}
			if strings.Join(rows[0], " ") != strings.Join(want, " ") {
				t.Errorf("got format/version/status/samples/replies %v, want %v", rows[0], want)
			}
		})
	}
	if n := testutil.Query(t, dir, "SELECT count(*) FROM logs")[0][0]; n != strconv.Itoa(len(lines)) {
		t.Errorf("logs rows = %s, SAMPLES.tsv lists %d", n, len(lines))
	}
}

// Legacy shapes of the corpus, read the way inspect_ai migrates them.
func TestSharedCorpusLegacyShapes(t *testing.T) {
	corpus := testutil.SharedCorpus(t)
	dir, _, _, err := runIngest(t, corpus)
	if err != nil {
		t.Fatal(err)
	}
	one := func(q string) []string {
		t.Helper()
		rows := testutil.Query(t, dir, q)
		if len(rows) != 1 {
			t.Fatalf("%s: %d rows", q, len(rows))
		}
		return rows[0]
	}
	// v3 message_pool: the six model events' input_refs expand to growing
	// prefixes 1, 3, 5, ... 11 of one conversation.
	got := one(`SELECT list(input_messages ORDER BY call_index) FROM model_calls c JOIN logs l USING (log_id)
	            WHERE l.path LIKE '%log_message_deduplication.eval'`)
	if got[0] != "[1, 3, 5, 7, 9, 11]" {
		t.Errorf("v3 pool expansion: input sizes %s", got[0])
	}
	// the string id "0" keeps its type
	if got := one(`SELECT sample_id, sample_id_type FROM replies r JOIN logs l USING (log_id) WHERE l.path LIKE '%log_message_deduplication.eval'`); got[0] != "0" || got[1] != "str" {
		t.Errorf("string id: %v", got)
	}
	// grader with the same model and no role: only the scorer span (0.3.95)
	// or the scorer step (2024) tells it apart.
	for _, c := range []struct{ file, reason string }{
		{"%security-guide.json", "scorer_span"},
		{"%input-task_8zXjbRzCWrL9GXiXo2vus9.json", "scorer_step"},
	} {
		got := one(`SELECT count(*) FILTER (kind = 'judge'), count(*) FILTER (kind = 'model_under_test'),
		   any_value(kind_reason) FILTER (kind = 'judge'), any_value(scorer) FILTER (kind = 'judge'),
		   count(*) FILTER (is_reply)
		  FROM model_calls c JOIN logs l USING (log_id) WHERE l.path LIKE '` + c.file + `'`)
		nSamples := one(`SELECT sample_count FROM logs WHERE path LIKE '` + c.file + `'`)[0]
		if got[0] != nSamples || got[1] != nSamples || got[2] != c.reason || got[3] != "model_graded_fact" || got[4] != nSamples {
			t.Errorf("%s: judge/mut/reason/scorer/replies = %v (samples %s)", c.file, got, nSamples)
		}
	}
	// 2024 transcript with tc:// refs: events found, reply taken from them.
	if got := one(`SELECT reply_source, text FROM replies r JOIN logs l USING (log_id) WHERE l.path LIKE '%log_formats.json'`); got[0] != "model_event" || got[1] == "" {
		t.Errorf("legacy transcript: %v", got)
	}
	// a log without events or output: reported as such, never dropped.
	if got := one(`SELECT reply_source, class, epoch FROM replies r JOIN logs l USING (log_id) WHERE l.path LIKE '%log_tool_call_error.json'`); got[0] != "none" || got[1] != "no_choices" || got[2] != "4" {
		t.Errorf("log without events: %v", got)
	}
}

// The tables' Parquet types are exactly the declared schema, as DuckDB reads
// the files themselves (the staging views cast to it, which would hide a
// difference).
func TestTablesMatchDeclaredSchema(t *testing.T) {
	dir, _, _, err := runIngest(t, testutil.SharedCorpus(t))
	if err != nil {
		t.Fatal(err)
	}
	root, err := store.Current(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, table := range schema.Tables() {
		if !store.HasTable(dir, table.Name) {
			continue // a later stage's table
		}
		t.Run(table.Name, func(t *testing.T) {
			rows := testutil.Query(t, dir, "SELECT column_name, column_type FROM (DESCRIBE SELECT * FROM "+duck.ReadParquet(root, table.Name)+")")
			cols := table.Columns()
			if len(rows) != len(cols) {
				t.Fatalf("%d columns in the file, %d declared", len(rows), len(cols))
			}
			for i, c := range cols {
				if rows[i][0] != c.Name || rows[i][1] != c.Stored {
					t.Errorf("column %d: file has %s %s, schema declares %s %s", i, rows[i][0], rows[i][1], c.Name, c.Stored)
				}
			}
		})
	}
}

// A bad file is reported with the member at fault, leaves no rows, and does
// not stop the others; the run fails with a partial-failure error.
func TestBadFilesAreReportedAndSkippedWhole(t *testing.T) {
	corpus := testutil.SharedCorpus(t)
	good := filepath.Join(corpus, "scorer", "logs", "2025-02-11T15-18-04-05-00_popularity_mj7khqpMM4GBCfVQozKgzB.eval")
	tmp := t.TempDir()

	// a copy of the good log with one sample member corrupted
	corrupt := filepath.Join(tmp, "corrupt-member.eval")
	testutil.RewriteZip(t, good, corrupt, func(name string, body []byte) []byte {
		if name == "samples/7_epoch_1.json" {
			return []byte(`{"id": 7, "epoch": 1, "events": [`)
		}
		return body
	})
	// a chunked-layout log: a shell and a chunk of its events
	chunked := filepath.Join(tmp, "chunked.eval")
	testutil.RewriteZip(t, good, chunked, func(name string, body []byte) []byte { return body },
		"samples/1_epoch_1/sample.json", "samples/1_epoch_1/events/0.json")
	// a truncated zip
	data, err := os.ReadFile(good)
	if err != nil {
		t.Fatal(err)
	}
	truncated := filepath.Join(tmp, "truncated.eval")
	os.WriteFile(truncated, data[:len(data)/2], 0o644)
	// a .json named that opens like a log and is not one
	notLog := filepath.Join(tmp, "notes.json")
	os.WriteFile(notLog, []byte(`{"version": 2, "status": "success"`), 0o644)

	dir, res, stderr, err := runIngest(t, good, corrupt, chunked, truncated, notLog)
	var partial *cliutil.PartialError
	if !errors.As(err, &partial) {
		t.Fatalf("want a partial failure, got %v", err)
	}
	for _, want := range []string{
		corrupt + ": samples/7_epoch_1.json: invalid JSON",
		chunked + ": samples/1_epoch_1/sample.json: chunked sample layout",
		truncated + ": ",
		notLog + ": ",
	} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
	if res.Files != 5 || res.Failed != 4 || res.Samples != 10 {
		t.Errorf("files, failed, samples = %d, %d, %d; want 5 files, 4 failed, 10 samples", res.Files, res.Failed, res.Samples)
	}
	if got := testutil.Query(t, dir, "SELECT count(*), count(DISTINCT log_id) FROM replies")[0]; got[0] != "10" || got[1] != "1" {
		t.Errorf("replies from the good file only: %v", got)
	}
	for _, table := range []string{"scores", "model_calls", "logs"} {
		if got := testutil.Query(t, dir, "SELECT count(*) FROM "+table+" WHERE log_id <> ?", ingest.LogID(good))[0][0]; got != "0" {
			t.Errorf("%s holds %s rows of failed files", table, got)
		}
	}
	errs := testutil.Query(t, dir, "SELECT path, member FROM ingest_errors ORDER BY path")
	if len(errs) != 4 {
		t.Fatalf("ingest_errors: %v", errs)
	}
	if errs[1][0] != corrupt || errs[1][1] != "samples/7_epoch_1.json" {
		t.Errorf("ingest_errors row: %v", errs[1])
	}
}

// A cancelled run leaves the previous tables as they were, and no staging
// area behind.
func TestCancelledRunKeepsPreviousTables(t *testing.T) {
	corpus := testutil.SharedCorpus(t)
	dir := t.TempDir()
	cfg := ingest.Config{Paths: []string{filepath.Join(corpus, "scorer")}, Out: dir}
	ingesttest.Build(t, cfg)
	before := testutil.Query(t, dir, "SELECT count(*) FROM replies")[0][0]
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	cfg.Paths = []string{corpus}
	if err := ingest.Build(ctx, cfg); !errors.Is(err, context.Canceled) {
		t.Fatalf("want context.Canceled, got %v", err)
	}
	if after := testutil.Query(t, dir, "SELECT count(*) FROM replies")[0][0]; after != before || before != "20" {
		t.Errorf("replies before %s, after the killed run %s", before, after)
	}
	if left, _ := filepath.Glob(filepath.Join(dir, ".staging-*")); len(left) != 0 {
		t.Errorf("staging left behind: %v", left)
	}
}

// A sample that summaries.json lists without a member is an ingest_errors
// row naming the sample and the member expected, and the exit code is 1; the
// log's other samples are still rows (a hole in a readable log, not an
// unreadable file: see writer.missing). A log written with log_samples off
// lists summaries on purpose and is no error.
func TestMissingMemberIsReported(t *testing.T) {
	corpus := testutil.SharedCorpus(t)
	good := filepath.Join(corpus, "scorer", "logs", "2025-02-11T15-18-04-05-00_popularity_mj7khqpMM4GBCfVQozKgzB.eval")
	holed := filepath.Join(t.TempDir(), "holed.eval")
	testutil.DropMember(t, good, holed, "samples/7_epoch_1.json")
	noSamples := testutil.Path(t, "testdata", "logs", "no-samples.eval")
	dir, res, stderr, err := runIngest(t, holed, noSamples)
	var partial *cliutil.PartialError
	if !errors.As(err, &partial) || !strings.Contains(err.Error(), "1 samples listed in their logs' summaries have no member") {
		t.Fatalf("want a partial failure for the missing member, got %v", err)
	}
	if want := holed + ": samples/7_epoch_1.json: sample 7 epoch 1 is listed in summaries.json but the log has no member samples/7_epoch_1.json"; !strings.Contains(stderr, want) {
		t.Errorf("stderr lacks %q:\n%s", want, stderr)
	}
	if res.Files != 2 || res.Failed != 0 || res.Samples != 9 || res.Missing != 1 {
		t.Errorf("files, failed, samples, missing = %d, %d, %d, %d; want 2 files, none failed, 9 samples, 1 missing", res.Files, res.Failed, res.Samples, res.Missing)
	}
	errs := testutil.Query(t, dir, "SELECT path, member, error FROM ingest_errors")
	if len(errs) != 1 || errs[0][0] != holed || errs[0][1] != "samples/7_epoch_1.json" || !strings.Contains(errs[0][2], "sample 7 epoch 1") {
		t.Fatalf("ingest_errors: %v", errs)
	}
	got := testutil.Query(t, dir, `SELECT l.sample_count, l.summary_count, count(r.sample_id), count(*) FILTER (r.sample_id = '7')
	  FROM logs l LEFT JOIN replies r USING (log_id) WHERE l.path = ? GROUP BY ALL`, holed)
	if len(got) != 1 || strings.Join(got[0], " ") != "9 10 9 0" {
		t.Errorf("sample_count, summary_count, replies, replies of sample 7 = %v, want 9 10 9 0", got)
	}
}

// Rows that spill to staging files (a log too large to hold) come out the
// same, in the same order, as rows held in memory.
func TestSpilledRowsMatchHeldRows(t *testing.T) {
	paths := []string{testutil.Path(t, "testdata", "logs"), testutil.Path(t, "testdata", "classify")}
	held, spilled := t.TempDir(), t.TempDir()
	for _, c := range []struct {
		dir   string
		spill int64
	}{{held, 0}, {spilled, 1}} {
		ingesttest.Build(t, ingest.Config{Paths: paths, Out: c.dir, SpillBytes: c.spill})
	}
	for _, q := range []string{
		"SELECT * EXCLUDE (log_id) FROM replies",
		"SELECT * EXCLUDE (log_id) FROM scores",
		"SELECT * EXCLUDE (log_id) FROM model_calls",
		"SELECT sample_count, path FROM logs",
	} {
		a, b := testutil.Query(t, held, q), testutil.Query(t, spilled, q)
		if len(a) == 0 || len(a) != len(b) {
			t.Fatalf("%s: %d rows held, %d spilled", q, len(a), len(b))
		}
		for i := range a {
			if strings.Join(a[i], "\x00") != strings.Join(b[i], "\x00") {
				t.Fatalf("%s: row %d differs:\n held   %v\n spilled %v", q, i, a[i], b[i])
			}
		}
	}
	if left, _ := filepath.Glob(filepath.Join(spilled, ".staging-*")); len(left) != 0 {
		t.Errorf("staging left behind: %v", left)
	}
}

// A .json file named on the command line that does not open like a log (in
// a folder it is skipped with a note) stops the run before any dataset is
// made, alone or beside a good log: a usage error (exit 2) naming it, where
// it once gave an ingest error and an empty dataset.
func TestNamedJSONThatIsNoLogStopsFirst(t *testing.T) {
	tmp := t.TempDir()
	notes := filepath.Join(tmp, "notes.json")
	os.WriteFile(notes, []byte(`["not", "a", "log"]`), 0o644)
	empty := filepath.Join(tmp, "empty.json")
	os.WriteFile(empty, nil, 0o644)
	good := testutil.Path(t, "testdata", "logs", "zstd-basic.eval")
	for _, paths := range [][]string{{notes}, {good, notes}, {empty}} {
		out := filepath.Join(t.TempDir(), "ds")
		_, _, err := ingestWith(t, ingest.Config{Paths: paths, Out: out})
		var usage *cliutil.UsageError
		if !errors.As(err, &usage) || !strings.Contains(err.Error(), paths[len(paths)-1]+": ") || !strings.Contains(err.Error(), "not an Inspect log") {
			t.Errorf("ingest %v: %v, want a usage error naming the file", paths, err)
		}
		if _, err := os.Lstat(out); !os.IsNotExist(err) {
			t.Errorf("ingest %v made the dataset folder (%v)", paths, err)
		}
	}
}
