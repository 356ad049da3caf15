package ingest_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"empties/internal/ingest"
	"empties/internal/ingest/ingesttest"
	"empties/internal/testutil"
)

// logsetExpect is testdata/logsets/EXPECT.json, written with the fixture by
// scripts/fixtures/logset_fixtures.py: what the script built to be
// superseded, and what inspect_ai's own code says of the folder.
type logsetExpect struct {
	Built          map[string][][2]string `json:"built"`
	ListingVisible []string               `json:"listing_visible"`
	LatestPerTask  []string               `json:"latest_per_task"`
	Files          map[string]struct {
		Status  string `json:"status"`
		Task    string `json:"task"`
		Samples [][2]json.RawMessage
	} `json:"files"`
}

// logsetExpectations reads testdata/logsets/EXPECT.json.
func logsetExpectations(t *testing.T) logsetExpect {
	t.Helper()
	var exp logsetExpect
	raw, err := os.ReadFile(testutil.Path(t, "testdata", "logsets", "EXPECT.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, &exp); err != nil {
		t.Fatal(err)
	}
	return exp
}

// A folder with a retried task, a recovered log and merged shards, as the
// real inspect_ai wrote them, yields each sample once; every file keeps its
// row with the status, the log that supersedes it and why; --all-attempts
// yields every sample of every file.
func TestLogSetCountsEachSampleOnce(t *testing.T) {
	study, exp := testutil.LogSetStudy(t), logsetExpectations(t)
	// a checkpoints companion is not read, whatever it holds
	testutil.CopyFile(t, filepath.Join(study, exp.LatestPerTask[0]), filepath.Join(study, "x.checkpoints", "a.eval"))

	// what each file should be: counted when inspect_ai's listing shows it
	// and eval_set keeps it (or it is a shard the listing shows), else
	// superseded by what the fixture script built it to be superseded by
	want := map[string]string{}
	latest := map[string]bool{}
	for _, f := range exp.LatestPerTask {
		latest[f] = true
	}
	for _, f := range exp.ListingVisible {
		if latest[f] || strings.Contains(f, ".shards/") {
			want[f] = "counted"
		}
	}
	for reason, pairs := range exp.Built {
		for _, p := range pairs {
			if want[p[0]] == "counted" {
				t.Fatalf("%s is built to be superseded but inspect_ai counts it", p[0])
			}
			if old, ok := want[p[0]]; ok && reason != "merged_shards" {
				t.Fatalf("%s built twice: %s", p[0], old)
			}
			if _, ok := want[p[0]]; !ok {
				want[p[0]] = reason + " by " + p[1]
			}
		}
	}
	if len(want) != len(exp.Files) {
		t.Fatalf("expectations name %d of %d files", len(want), len(exp.Files))
	}

	dir := t.TempDir()
	res, log, err := ingestWith(t, ingest.Config{Paths: []string{study}, Out: dir, Workers: 2})
	if err != nil {
		t.Fatalf("%v\n%s", err, log)
	}
	rel := func(p string) string { r, _ := filepath.Rel(study, p); return r }
	byID := map[string]string{}
	rows := testutil.Query(t, dir, "SELECT log_id, path, set_status, superseded_by, superseded_reason, sample_count FROM logs")
	for _, r := range rows {
		byID[r[0]] = rel(r[1])
	}
	if len(rows) != len(exp.Files) {
		t.Fatalf("logs has %d rows for %d files (the .checkpoints folder is not read)", len(rows), len(exp.Files))
	}
	var supersededLogs, supersededSamples int
	for _, r := range rows {
		got := r[2]
		if r[2] == "superseded" {
			got = r[4] + " by " + byID[r[3]]
			supersededLogs++
			n, _ := strconv.Atoi(r[5])
			supersededSamples += n
		} else if r[3] != "NULL" || r[4] != "NULL" {
			t.Errorf("%s: counted with superseded_by %s, reason %s", rel(r[1]), r[3], r[4])
		}
		if w := want[rel(r[1])]; got != w {
			t.Errorf("%s: %s, want %s", rel(r[1]), got, w)
		}
	}
	if res.Set.Logs != int64(supersededLogs) || res.Set.Samples != int64(supersededSamples) {
		t.Errorf("log set: %d logs superseded holding %d samples, want %d holding %d", res.Set.Logs, res.Set.Samples, supersededLogs, supersededSamples)
	}

	// each (task, sample, epoch) that any file holds is counted exactly once
	all := map[string]int{}
	total := 0
	for _, f := range exp.Files {
		for _, s := range f.Samples {
			var id string
			_ = json.Unmarshal(s[0], &id)
			all[f.Task+"|"+id+"|"+string(s[1])] = 0
			total++
		}
	}
	counted := testutil.Query(t, dir, `SELECT r.task || '|' || r.sample_id || '|' || r.epoch, count(*) FROM replies r JOIN logs l USING (log_id)
		WHERE l.set_status = 'counted' GROUP BY ALL`)
	got := map[string]int{}
	for _, r := range counted {
		n, _ := strconv.Atoi(r[1])
		got[r[0]] = n
	}
	for k := range all {
		if got[k] != 1 {
			t.Errorf("sample %s counted %d times", k, got[k])
		}
	}
	if len(got) != len(all) {
		t.Errorf("%d counted sample keys, %d in the files", len(got), len(all))
	}
	if r := testutil.Query(t, dir, "SELECT count(*) FROM replies"); r[0][0] != strconv.Itoa(total) {
		t.Errorf("replies has %s rows, the files hold %d samples: superseded logs' rows must stay", r[0][0], total)
	}

	// --all-attempts: every file counted
	dir2 := ingesttest.Build(t, ingest.Config{Paths: []string{study}, Workers: 2, AllAttempts: true})
	r := testutil.Query(t, dir2, `SELECT count(*) FILTER (WHERE set_status = 'counted' AND superseded_by IS NULL), count(*),
		(SELECT count(*) FROM replies JOIN logs USING (log_id) WHERE set_status = 'counted') FROM logs`)
	if want := []string{strconv.Itoa(len(exp.Files)), strconv.Itoa(len(exp.Files)), strconv.Itoa(total)}; strings.Join(r[0], ",") != strings.Join(want, ",") {
		t.Errorf("--all-attempts: counted logs, logs, counted samples = %v, want %v", r[0], want)
	}
	keys := make([]string, 0, len(all))
	for k := range all {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	if testing.Verbose() {
		t.Logf("%d sample keys over %d files: %v", len(keys), len(exp.Files), keys)
	}
}
