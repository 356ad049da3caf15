package pypkg_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"empties/internal/ingest"
	"empties/internal/ingest/ingesttest"
	"empties/internal/testutil"
)

// corpusDatasets ingests the shared corpora (and the fixtures, for NaN
// literals, every class and odd values) into datasets of their own, once for
// the tests of the package (TestMain removes them), keyed by the logs.
func corpusDatasets(t *testing.T) map[string]string {
	t.Helper()
	corpora.once.Do(func() {
		dir, err := os.MkdirTemp("", "empties-pypkg-corpora-")
		if err != nil {
			corpora.err = err
			return
		}
		corpora.dir = dir
		wild := filepath.Join(testutil.WildCorpus(t), "logs")
		tests := testutil.SharedCorpus(t)
		corpora.sets = map[string]string{}
		for name, paths := range map[string][]string{
			wild:       {wild},
			tests:      {tests},
			"fixtures": {testutil.Path(t, "testdata", "logs"), testutil.Path(t, "testdata", "classify")},
		} {
			out := filepath.Join(dir, strconv.Itoa(len(corpora.sets)))
			corpora.sets[name] = ingesttest.Build(t, ingest.Config{Paths: paths, Out: out, Workers: 2})
		}
	})
	if corpora.err != nil {
		t.Fatal(corpora.err)
	}
	return corpora.sets
}

var corpora struct {
	once sync.Once
	dir  string
	sets map[string]string
	err  error
}

// The frames hold what `empties sql "SELECT * FROM <table>"` prints: every
// row of replies, scores, model_calls and logs of both shared corpora and the
// fixtures, cell for cell and in order, as pandas, polars and a DuckDB
// relation, each pandas column of the dtype its DuckDB type gives
// (testdata/frames_equal.py).
func TestFramesEqualSQL(t *testing.T) {
	t.Parallel()
	sets := corpusDatasets(t)
	args := []string{testutil.Path(t, "internal", "pypkg", "testdata", "frames_equal.py")}
	for _, ds := range sets {
		args = append(args, ds)
	}
	out := runPythonEnv(t, "", nil, []string{"EMPTIES_BIN=" + testutil.Binary(t)}, args...)
	rows := map[string]int{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		var r struct {
			Table       string   `json:"table"`
			Rows        int      `json:"rows"`
			JSONColumns []string `json:"json_columns"`
			Differences int      `json:"differences"`
			First       []string `json:"first"`
		}
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("%v: %s", err, line)
		}
		if r.Differences > 0 {
			t.Errorf("%s: %d differences: %s", r.Table, r.Differences, strings.Join(r.First, "\n  "))
		}
		rows[r.Table] += r.Rows
	}
	if rows["replies"] < 2000 || rows["scores"] < 2000 || len(rows) != 4 {
		t.Errorf("rows compared: %v", rows)
	}
	t.Logf("rows compared, per table: %v", rows)
}

// replies_df and scores_df against inspect_ai.analysis.samples_df on each
// shared corpus: every sample samples_df lists is a reply row, every reply
// row it lacks is one read_eval_log reads from a log samples_df lists no
// sample of, and every score it gives is the value scores_df holds
// (testdata/frames_vs_samples_df.py).
func TestFramesAgainstSamplesDF(t *testing.T) {
	t.Parallel()
	sets := corpusDatasets(t)
	script := testutil.Path(t, "internal", "pypkg", "testdata", "frames_vs_samples_df.py")
	scores := 0
	for logs, ds := range sets {
		if logs == "fixtures" {
			continue
		}
		out := runPythonEnv(t, "", nil, []string{"EMPTIES_BIN=" + testutil.Binary(t)}, script, logs, ds)
		var r struct {
			SamplesDF      int      `json:"samples_df_rows"`
			Replies        int      `json:"replies_rows"`
			OnlyInReplies  int      `json:"only_in_replies"`
			ScoresCompared int      `json:"scores_compared"`
			Differences    int      `json:"differences"`
			First          []string `json:"first"`
		}
		if err := json.Unmarshal(out, &r); err != nil {
			t.Fatalf("%v: %s", err, out)
		}
		if r.Differences > 0 {
			t.Errorf("%s: %d differences: %s", logs, r.Differences, strings.Join(r.First, "\n  "))
		}
		if r.SamplesDF == 0 || r.ScoresCompared == 0 {
			t.Errorf("%s: nothing compared: %s", logs, out)
		}
		scores += r.ScoresCompared
		t.Logf("%s: samples_df %d rows, replies_df %d (%d only read by read_eval_log), %d scores equal", filepath.Base(logs), r.SamplesDF, r.Replies, r.OnlyInReplies, r.ScoresCompared)
	}
	if scores < 1900 {
		t.Errorf("only %d scores compared", scores)
	}
}
