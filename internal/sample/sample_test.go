package sample_test

import (
	"context"
	"strconv"
	"strings"
	"testing"

	"empties/internal/ingest"
	"empties/internal/ingest/ingesttest"
	"empties/internal/sample"
	"empties/internal/testutil"
)

func draw(t *testing.T, data string, seed int64, per int) []sample.Item {
	t.Helper()
	d, err := sample.Select(context.Background(), data, sample.Config{PerClass: per, Seed: seed})
	if err != nil {
		t.Fatal(err)
	}
	return d.Items
}

func TestSampleIsDeterministicAndCapped(t *testing.T) {
	data := ingesttest.Fixtures(t, "classify", "logs")
	a := draw(t, data, 3, 2)
	b := draw(t, data, 3, 2)
	if len(a) == 0 || !equalDraw(a, b) {
		t.Fatalf("same seed gave different draws:\n%v\n%v", keys(a), keys(b))
	}
	perClass := map[string]int{}
	for _, it := range a {
		perClass[it.Class]++
		if it.RuleText == "" || !strings.HasPrefix(it.ClassRule, strings.SplitN(it.ClassRule, ".", 2)[0]) {
			t.Errorf("item without its rule: %+v", it)
		}
	}
	for c, n := range perClass {
		if n > 2 {
			t.Errorf("class %s: %d items, cap 2", c, n)
		}
	}
	// answer has many replies; another seed draws another pair.
	c := draw(t, data, 4, 2)
	if equalDraw(a, c) {
		t.Errorf("seeds 3 and 4 drew the same set")
	}
}

// --class draws only the classes named, an unknown class is refused, and
// a draw needs a positive size.
func TestSampleClasses(t *testing.T) {
	data := ingesttest.Fixtures(t, "classify", "logs")
	ctx := context.Background()
	d, err := sample.Select(ctx, data, sample.Config{PerClass: 50, Seed: 1, Classes: []string{"error", "answer"}})
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, it := range d.Items {
		seen[it.Class] = true
	}
	if !seen["error"] || !seen["answer"] || len(seen) != 2 {
		t.Errorf("--class error --class answer drew classes %v", seen)
	}
	if d.Drawn("answer") != int(min(d.Totals["answer"], 50)) {
		t.Errorf("drew %d answers of %d", d.Drawn("answer"), d.Totals["answer"])
	}
	if _, err := sample.Select(ctx, data, sample.Config{PerClass: 1, Classes: []string{"nope"}}); err == nil || !strings.Contains(err.Error(), `unknown class "nope"`) {
		t.Errorf("an unknown class: %v", err)
	}
	if _, err := sample.Select(ctx, data, sample.Config{PerClass: 0}); err == nil {
		t.Error("a draw of 0 per class was accepted")
	}
}

func equalDraw(a, b []sample.Item) bool {
	return strings.Join(keys(a), "|") == strings.Join(keys(b), "|")
}

func keys(items []sample.Item) []string {
	var out []string
	for _, it := range items {
		out = append(out, it.Class+"/"+it.LogSHA256[:8]+"/"+it.SampleID)
	}
	return out
}

// Replies of superseded logs (an older attempt, a crashed log beside its
// recovered copy, merged shards) are not drawn; a dataset ingested with
// --all-attempts draws from every file.
func TestSampleLeavesOutSupersededLogs(t *testing.T) {
	study := testutil.LogSetStudy(t)
	counted, every := t.TempDir(), t.TempDir()
	for _, c := range []struct {
		dir string
		all bool
	}{{counted, false}, {every, true}} {
		ingesttest.Build(t, ingest.Config{Paths: []string{study}, Out: c.dir, AllAttempts: c.all})
	}
	superseded := map[string]bool{}
	for _, r := range testutil.Query(t, counted, "SELECT path FROM logs WHERE set_status = 'superseded'") {
		superseded[r[0]] = true
	}
	if len(superseded) == 0 {
		t.Fatal("the log-set study has no superseded log")
	}
	d, err := sample.Select(context.Background(), counted, sample.Config{PerClass: 1000, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	items := d.Items
	for _, it := range items {
		if superseded[it.LogPath] {
			t.Errorf("drew %s %s from superseded %s", it.SampleID, it.Member, it.LogPath)
		}
	}
	want := testutil.Query(t, counted, "SELECT count(*) FROM replies JOIN logs USING (log_id) WHERE set_status = 'counted'")[0][0]
	if strconv.Itoa(len(items)) != want {
		t.Errorf("drew %d replies, the counted logs hold %s", len(items), want)
	}
	left := testutil.Query(t, counted, "SELECT count(*) FROM replies JOIN logs USING (log_id) WHERE set_status = 'superseded'")[0][0]
	if strconv.FormatInt(d.Superseded, 10) != left || d.Superseded == 0 {
		t.Errorf("left out %d replies of superseded logs, they hold %s", d.Superseded, left)
	}
	all := draw(t, every, 1, 1000)
	if n := testutil.Query(t, every, "SELECT count(*) FROM replies")[0][0]; strconv.Itoa(len(all)) != n || len(all) <= len(items) {
		t.Errorf("--all-attempts: drew %d replies of %s (counted only: %d)", len(all), n, len(items))
	}
}
