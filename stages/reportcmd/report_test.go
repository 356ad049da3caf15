package reportcmd_test

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"html"
	"image/png"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"empties/internal/duck"
	"empties/internal/testutil"
	"empties/stages/reportcmd"
)

func readTree(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	files := map[string][]byte{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		files[rel] = b
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// The same inputs give byte-identical reports.
func TestReportIsByteIdentical(t *testing.T) {
	ctx := context.Background()
	data := studyDataset(t, testutil.Path(t, "testdata", "profiles"))
	out1, out2 := filepath.Join(t.TempDir(), "r1"), filepath.Join(t.TempDir(), "r2")
	var log bytes.Buffer
	for _, out := range []string{out1, out2} {
		if err := reportcmd.Run(ctx, reportcmd.Options{Data: data, Out: out}, &log); err != nil {
			t.Fatal(err)
		}
	}
	a, b := readTree(t, out1), readTree(t, out2)
	if len(a) == 0 || len(a) != len(b) {
		t.Fatalf("files: %d vs %d", len(a), len(b))
	}
	for name, content := range a {
		if !bytes.Equal(content, b[name]) {
			t.Errorf("%s differs between two runs", name)
		}
	}
	index := string(a["index.md"])
	for _, want := range []string{"tables/decisions.csv", "tables/headlines.parquet", "tables/p0_check.csv",
		"plots/class_shares.vl.json", "plots/d3_deltas.vl.json", "plots/non_answer_heatmap.vl.json"} {
		if !strings.Contains(index, want) {
			t.Errorf("index.md does not link %s", want)
		}
	}
	if !strings.Contains(string(a["tables/p0_check.csv"]), "xstest_safe") {
		t.Errorf("p0_check.csv lacks the xstest_safe row")
	}
	checkFiles(t, out1, a)
}

// checkFiles: every table the page links downloads as CSV and as Parquet
// holding the same rows (read back by DuckDB), the HTML page links no raw
// Markdown table, and every chart spec is a Vega-Lite spec with its data.
func checkFiles(t *testing.T, dir string, files map[string][]byte) {
	t.Helper()
	page := string(files["index.html"])
	links := regexp.MustCompile(`href="tables/([a-z0-9_]+)\.(csv|parquet|md)"`).FindAllStringSubmatch(page, -1)
	if len(links) == 0 {
		t.Fatal("index.html links no table")
	}
	db, err := duck.Open("")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, l := range links {
		if l[2] == "md" {
			t.Errorf("index.html links tables/%s.md, a raw Markdown file", l[1])
			continue
		}
		if l[2] != "parquet" {
			continue
		}
		recs, err := csv.NewReader(bytes.NewReader(files["tables/"+l[1]+".csv"])).ReadAll()
		if err != nil || len(recs) == 0 {
			t.Errorf("tables/%s.csv: %v", l[1], err)
			continue
		}
		var n int
		if err := db.QueryRow("SELECT count(*) FROM read_parquet(" + duck.ReadPath(filepath.Join(dir, "tables", l[1]+".parquet"), "") + ")").Scan(&n); err != nil {
			t.Errorf("tables/%s.parquet: %v", l[1], err)
		} else if n != len(recs)-1 {
			t.Errorf("tables/%s.parquet has %d rows, the CSV %d", l[1], n, len(recs)-1)
		}
	}
	specs := 0
	for name, b := range files {
		if !strings.HasPrefix(name, "plots/") {
			continue
		}
		if !strings.HasSuffix(name, ".vl.json") {
			t.Errorf("%s: plots/ holds only Vega-Lite specs", name)
			continue
		}
		specs++
		var spec struct {
			Schema string `json:"$schema"`
			Data   struct {
				Values []map[string]any `json:"values"`
			} `json:"data"`
		}
		if err := json.Unmarshal(b, &spec); err != nil || !strings.Contains(spec.Schema, "vega-lite/v6") || len(spec.Data.Values) == 0 {
			t.Errorf("%s: not a Vega-Lite spec with data (%v)", name, err)
		}
		id := strings.TrimSuffix(strings.TrimPrefix(name, "plots/"), ".vl.json")
		if !strings.Contains(page, `<script type="application/json" id="spec-`+id+`">`) {
			t.Errorf("index.html does not inline the spec of %s", id)
		}
	}
	if specs == 0 {
		t.Error("no chart specs in plots/")
	}
	markup := page // the page without its scripts (the chart library names image marks)
	if i := strings.Index(page, "<script>"); i >= 0 {
		markup = page[:i]
	}
	if strings.Contains(markup, "<img") || strings.Contains(markup, "<link") || strings.Contains(markup, "<iframe") {
		t.Error("index.html loads something")
	}
}

// Without a manifest the report is an exploration: rates per task × model and
// examples of each class with the address that opens them, in index.md and
// index.html, byte-identical across runs.
func TestExplorationReport(t *testing.T) {
	ctx := context.Background()
	data := exploreDataset(t, testutil.Path(t, "testdata", "profiles"))
	out1, out2 := filepath.Join(t.TempDir(), "r1"), filepath.Join(t.TempDir(), "r2")
	for _, out := range []string{out1, out2} {
		if err := reportcmd.Run(ctx, reportcmd.Options{Data: data, Out: out}, io.Discard); err != nil {
			t.Fatal(err)
		}
	}
	a, b := readTree(t, out1), readTree(t, out2)
	for _, name := range []string{"index.md", "index.html"} {
		if len(a[name]) == 0 || !bytes.Equal(a[name], b[name]) {
			t.Errorf("%s missing or different between two runs", name)
		}
	}
	index := string(a["index.md"])
	for _, want := range []string{"# Empty responses: exploration report", "## How often replies come back empty",
		"### By model", "### Where non-answers are most frequent (task × model)", "## What the classes mean", "## Charts",
		"## Examples: what the replies look like", "### Non-answer rates per task × model", "### Logs read", "### How the replies were chosen",
		"### Truncation against the effective max_tokens", "### Judges that received a non-answer",
		"](http://127.0.0.1:7575/#/logs/", "inspect view --log-dir '", "plots/non_answer_heatmap.vl.json", "tables/class_examples.csv",
		"needs the study manifest"} {
		if !strings.Contains(index, want) {
			t.Errorf("index.md lacks %q", want)
		}
	}
	// Every class drawn has its heading, and the page shows every example link.
	classes := map[string]bool{}
	r := csv.NewReader(bytes.NewReader(a["tables/class_examples.csv"]))
	recs, err := r.ReadAll()
	if err != nil || len(recs) < 2 {
		t.Fatalf("class_examples.csv: %d records, %v", len(recs), err)
	}
	urlCol := -1
	for i, c := range recs[0] {
		if c == "view_url" {
			urlCol = i
		}
	}
	for _, rec := range recs[1:] {
		classes[rec[0]] = true
		if !strings.Contains(string(a["index.html"]), `<a href="`+html.EscapeString(rec[urlCol])+`">`) {
			t.Errorf("index.html has no link to %s", rec[urlCol])
		}
	}
	for c := range classes {
		if !strings.Contains(index, "### `"+c+"` (") {
			t.Errorf("index.md has no examples heading for class %s", c)
		}
	}
	checkFiles(t, out1, a)
	sameHeadline(t, a)
}

// sameHeadline: index.md carries the first screen of index.html: the three
// shares as its cards show them, and a row per model of the "By model" table.
func sameHeadline(t *testing.T, files map[string][]byte) {
	t.Helper()
	page, index := string(files["index.html"]), string(files["index.md"])
	big := regexp.MustCompile(`<div class="big">([^<]+)</div>`).FindAllStringSubmatch(page, -1)
	if len(big) != 3 {
		t.Fatalf("index.html has %d headline numbers, want 3", len(big))
	}
	for _, m := range big {
		if !strings.Contains(index, "| **"+m[1]+"** |") {
			t.Errorf("index.md lacks the headline share %s", m[1])
		}
	}
	table := page[strings.Index(page, `<div class="table" id="t-by-`):]
	table = table[:strings.Index(table, "</table>")]
	// a name's pieces are spans, with break opportunities after a slash
	table = regexp.MustCompile(`<wbr>|<span class="w">|</span>`).ReplaceAllString(table, "")
	rows := regexp.MustCompile(`<tr><td>([^<]+)</td>`).FindAllStringSubmatch(table, -1)
	if len(rows) == 0 {
		t.Fatal("index.html: no row in the By model table")
	}
	for _, r := range rows {
		if !strings.Contains(index, "| "+html.UnescapeString(r[1])+" |") {
			t.Errorf("index.md: no row for %s in By model", r[1])
		}
	}
}

// index.md shows every chart as an image drawn from the spec beside it by
// vl-convert in the project's Python (the page's Vega and Vega-Lite, no
// browser): a PNG per spec, as wide as the spec asks, listed among the
// report's files; where the Python has no vl-convert the report is written
// all the same and index.md says why it has no images.
func TestChartImagesInMarkdown(t *testing.T) {
	ctx := context.Background()
	data := studyDataset(t, testutil.Path(t, "testdata", "profiles"))
	out := filepath.Join(t.TempDir(), "report")
	var log bytes.Buffer
	if err := reportcmd.Run(ctx, reportcmd.Options{Data: data, Out: out, Python: testutil.Path(t, ".venv", "bin", "python")}, &log); err != nil {
		t.Fatal(err)
	}
	files := readTree(t, out)
	index := string(files["index.md"])
	specs := 0
	for name, b := range files {
		chart, ok := strings.CutSuffix(strings.TrimPrefix(name, "plots/"), ".vl.json")
		if !ok {
			continue
		}
		specs++
		img, err := png.DecodeConfig(bytes.NewReader(files["plots/"+chart+".png"]))
		if err != nil {
			t.Errorf("plots/%s.png: %v", chart, err)
			continue
		}
		var spec struct {
			Width any `json:"width"`
		}
		json.Unmarshal(b, &spec)
		if w, ok := spec.Width.(float64); ok && float64(img.Width) < w {
			t.Errorf("plots/%s.png is %d px wide, its spec asks %v", chart, img.Width, w)
		}
		if !strings.Contains(index, "](plots/"+chart+".png)") {
			t.Errorf("index.md does not show plots/%s.png", chart)
		}
		if !strings.Contains(string(files[".empties-output.json"]), "plots/"+chart+".png") {
			t.Errorf("plots/%s.png is not among the report's files", chart)
		}
	}
	if specs == 0 || !strings.Contains(log.String(), fmt.Sprintf("(%d drawn for index.md)", specs)) {
		t.Errorf("%d specs; the report says %q", specs, log.String())
	}
	if strings.Contains(index, "were not made") {
		t.Error("index.md says its images were not made")
	}

	none := filepath.Join(t.TempDir(), "report")
	log.Reset()
	if err := reportcmd.Run(ctx, reportcmd.Options{Data: data, Out: none, Python: filepath.Join(t.TempDir(), "no-python")}, &log); err != nil {
		t.Fatal(err)
	}
	md, err := os.ReadFile(filepath.Join(none, "index.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(md), "their images for this page were not made: no Python at") || strings.Contains(string(md), ".png)") ||
		!strings.Contains(log.String(), "not drawn for index.md: no Python at") {
		t.Errorf("without a renderer: the report says %q, index.md %.600q", log.String(), string(md))
	}
}
