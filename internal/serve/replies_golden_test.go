package serve_test

import (
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"empties/internal/serve"
	"empties/internal/testutil"
)

var updateReplies = flag.Bool("update-replies", false, "rewrite testdata/replies/*.html from this run")

// repliesPages are the replies pages of the fixtures the golden test
// renders: facets chosen (a value, several, NULL, one matching no row, the
// log), each sort and direction, paging and page sizes, the text and id
// chips. {log} stands for the log_id of zstd-basic.eval.
var repliesPages = []struct{ name, query string }{
	{"default", ""},
	{"class-one", "class=truncated_empty"},
	{"class-two", "class=error&class=answer"},
	{"non-answer", "non_answer=true"},
	{"null-facet", "null=stop_reason&stop_reason=max_tokens"},
	{"absent-value", "model=nobody/none&task=popularity"},
	{"log", "log={log}"},
	{"set-all", "set=counted&set=superseded"},
	{"sort-chars-desc", "sort=chars&dir=desc"},
	{"sort-task", "sort=task"},
	{"sort-class-asc", "sort=class"},
	{"page-2", "n=25&page=2"},
	{"page-past-end", "n=25&page=99"},
	{"per-page-200", "n=200"},
	{"text", "q=the&sort=sample"},
	{"sample-id", "id=1"},
	{"mixed", "class=answer&class=error&stop_reason=stop&sort=tokens&dir=desc&n=25&page=2"},
}

// TestRepliesPageGolden renders the replies page for each query of
// repliesPages over the fixtures and compares it with testdata/replies:
// the page is the product, so a change to the handler keeps every byte.
// What differs between checkouts is replaced before the comparison (see
// normalizeReplies).
func TestRepliesPageGolden(t *testing.T) {
	dir := fixtures(t)
	_, hs := server(t, serve.Options{Data: dir})
	logs := testutil.Query(t, dir, "SELECT log_id, path FROM logs ORDER BY path")
	var zstd string
	for _, l := range logs {
		if filepath.Base(l[1]) == "zstd-basic.eval" {
			zstd = l[0]
		}
	}
	if zstd == "" {
		t.Fatal("no zstd-basic.eval in the fixtures' logs table")
	}
	for _, p := range repliesPages {
		t.Run(p.name, func(t *testing.T) {
			q := strings.ReplaceAll(p.query, "{log}", zstd)
			path := "/replies"
			if q != "" {
				path += "?" + q
			}
			got := normalizeReplies(t, page(t, hs.URL, path), dir, logs)
			file := filepath.Join("testdata", "replies", p.name+".html")
			if *updateReplies {
				if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(file, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(file)
			if err != nil {
				t.Fatalf("%v (run with -update-replies to record it)", err)
			}
			if got != string(want) {
				t.Errorf("GET %s differs from %s:\n%s", path, file, firstDiff(string(want), got))
			}
		})
	}
}

var (
	elapsedRe  = regexp.MustCompile(`answered in [0-9.]+[µnm]?s · `)
	writtenRe  = regexp.MustCompile(`generation (\d+) \([^)]*\)`)
	logFacetRe = regexp.MustCompile(`(?s)<section class="facet" data-facet="log">.*?</section>`)
	facetLiRe  = regexp.MustCompile(`<li[ >].*?</li>`)
)

// normalizeReplies replaces what depends on the checkout and the clock: the
// time the page took, when the generation was written, the dataset's
// folder, the repository's path before a fixture's, and each log_id (a hash of the absolute
// path) by its file's name. The log facet's values tie on counts and are
// then ordered by log_id, so its items are listed sorted.
func normalizeReplies(t *testing.T, body, dir string, logs [][]string) string {
	body = elapsedRe.ReplaceAllString(body, "answered in ELAPSED · ")
	body = writtenRe.ReplaceAllString(body, "generation $1 (WRITTEN)")
	body = strings.ReplaceAll(body, dir, "$DATA")
	// Only the fixtures' paths: a log's own text may name the folder the
	// fixture was written from (a traceback in /work/main/.venv), which is
	// not this checkout's business and must read the same wherever it lies.
	body = strings.ReplaceAll(body, filepath.Join(testutil.RepoRoot(t), "testdata")+"/", "$ROOT/testdata/")
	for _, l := range logs {
		body = strings.ReplaceAll(body, l[0], "LOG:"+filepath.Base(l[1]))
	}
	return logFacetRe.ReplaceAllStringFunc(body, func(s string) string {
		items := facetLiRe.FindAllString(s, -1)
		slices.Sort(items)
		head, _, _ := strings.Cut(s, "<ul>")
		return head + "<!-- items sorted -->\n" + strings.Join(items, "\n") + "\n</section>"
	})
}

// firstDiff shows the first line where two pages differ.
func firstDiff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := range max(len(w), len(g)) {
		var a, b string
		if i < len(w) {
			a = w[i]
		}
		if i < len(g) {
			b = g[i]
		}
		if a != b {
			return "line " + strconv.Itoa(i+1) + ":\n- " + a + "\n+ " + b
		}
	}
	return "(same lines)"
}
