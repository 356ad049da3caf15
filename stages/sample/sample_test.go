package sample_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"html"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"empties/internal/ingest"
	"empties/internal/testutil"
	"empties/stages/sample"
)

func ingestFixtures(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	paths := []string{testutil.Path(t, "testdata", "classify"), testutil.Path(t, "testdata", "logs")}
	if err := ingest.Build(context.Background(), ingest.Config{Paths: paths, Out: dir}); err != nil {
		t.Fatal(err)
	}
	return dir
}

func draw(t *testing.T, data, out string, seed int64, per int) []sample.Item {
	t.Helper()
	var buf bytes.Buffer
	if err := sample.Run(context.Background(), sample.Options{Data: data, Out: out, PerClass: per, Seed: seed}, &buf); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(filepath.Join(out, "review-seed"+strconv.FormatInt(seed, 10)+".jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var items []sample.Item
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		var it sample.Item
		if err := json.Unmarshal(sc.Bytes(), &it); err != nil {
			t.Fatal(err)
		}
		items = append(items, it)
	}
	return items
}

func TestSampleIsDeterministicAndCapped(t *testing.T) {
	data := ingestFixtures(t)
	a := draw(t, data, t.TempDir(), 3, 2)
	b := draw(t, data, t.TempDir(), 3, 2)
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
	c := draw(t, data, t.TempDir(), 4, 2)
	if equalDraw(a, c) {
		t.Errorf("seeds 3 and 4 drew the same set")
	}
}

func TestSampleHTMLEscapesAndCoversDraw(t *testing.T) {
	data := ingestFixtures(t)
	out := t.TempDir()
	items := draw(t, data, out, 5, 50)
	page, err := os.ReadFile(filepath.Join(out, "review-seed5.html"))
	if err != nil {
		t.Fatal(err)
	}
	for _, it := range items {
		if !bytes.Contains(page, []byte("sample "+it.SampleID+" epoch")) {
			t.Errorf("page lacks %s/%s", it.Class, it.SampleID)
		}
	}
	// Raw fields are shown as stored, escaped once for HTML: never quoted
	// again (a sample_error with \n and quotes read \\n before).
	text := html.UnescapeString(string(page))
	errs := 0
	for _, it := range items {
		if it.SampleError == nil {
			continue
		}
		errs++
		if !strings.Contains(text, *it.SampleError) {
			t.Errorf("%s: the page does not show its sample_error as stored: %q", it.SampleID, *it.SampleError)
		}
		if q := strconv.Quote(*it.SampleError); strings.Contains(text, q) {
			t.Errorf("%s: the page quotes its sample_error again: %s", it.SampleID, q)
		}
	}
	if errs == 0 {
		t.Error("no drawn reply has a sample_error: the check above checked nothing")
	}
	if bytes.Contains(page, []byte("<think>")) {
		t.Errorf("raw model text reached the page unescaped")
	}
	if !bytes.Contains(page, []byte("&lt;think&gt;")) {
		t.Errorf("the unterminated-think reply is missing from the page")
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
		if err := ingest.Build(context.Background(), ingest.Config{Paths: []string{study}, Out: c.dir, AllAttempts: c.all}); err != nil {
			t.Fatal(err)
		}
	}
	superseded := map[string]bool{}
	for _, r := range testutil.Query(t, counted, "SELECT path FROM logs WHERE set_status = 'superseded'") {
		superseded[r[0]] = true
	}
	if len(superseded) == 0 {
		t.Fatal("the log-set study has no superseded log")
	}
	items := draw(t, counted, t.TempDir(), 1, 1000)
	for _, it := range items {
		if superseded[it.LogPath] {
			t.Errorf("drew %s %s from superseded %s", it.SampleID, it.Member, it.LogPath)
		}
	}
	want := testutil.Query(t, counted, "SELECT count(*) FROM replies JOIN logs USING (log_id) WHERE set_status = 'counted'")[0][0]
	if strconv.Itoa(len(items)) != want {
		t.Errorf("drew %d replies, the counted logs hold %s", len(items), want)
	}
	all := draw(t, every, t.TempDir(), 1, 1000)
	if n := testutil.Query(t, every, "SELECT count(*) FROM replies")[0][0]; strconv.Itoa(len(all)) != n || len(all) <= len(items) {
		t.Errorf("--all-attempts: drew %d replies of %s (counted only: %d)", len(all), n, len(items))
	}
}
