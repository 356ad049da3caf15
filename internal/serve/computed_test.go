package serve_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"empties/internal/ingest/ingesttest"
	"empties/internal/measures"
	"empties/internal/serve"
	"empties/internal/store"
	"empties/internal/testutil"
)

// A dataset only ingest wrote gets its exploration measures computed by the
// server into its scratch: the report page shows them, says they are not
// stored, and the dataset is left as it was. Without the measures function
// the page has no overview.
func TestReportOfAnIngestOnlyDataset(t *testing.T) {
	dir := ingesttest.Dataset(t, filepath.Join(testutil.WildCorpus(t), "logs"))
	if store.HasTable(dir, "overview") {
		t.Fatal("the ingest-only dataset has an overview table")
	}
	before := testutil.Snapshot(t, dir)
	for _, tc := range []struct {
		name     string
		measures serve.MeasuresFunc
		computed bool
	}{
		{"computed by serve", measures.Explore, true},
		{"without the measures function", nil, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, hs := server(t, serve.Options{Data: dir, Measures: tc.measures})
			body := page(t, hs.URL, "/")
			note := strings.Contains(body, `id="computed-measures"`) && strings.Contains(body, "empties analyze --data "+dir+"</code>")
			noOverview := strings.Contains(body, "No overview table")
			if note != tc.computed || noOverview == tc.computed {
				t.Errorf("note %v, 'No overview table' %v; want note %v:\n%.3000s", note, noOverview, tc.computed, body)
			}
			if !tc.computed {
				return
			}
			code, csvBody := get(t, nil, hs.URL+"/report/tables/overview.csv")
			if code != 200 || strings.Count(csvBody, "\n") < 2 {
				t.Errorf("overview.csv: %d %.300s", code, csvBody)
			}
		})
	}
	testutil.SameTree(t, "serving the ingest-only dataset", before, testutil.Snapshot(t, dir))
}

// A dataset analyze wrote is reported as it is: no measures computed, no note.
func TestReportOfAnAnalyzedDatasetHasNoNote(t *testing.T) {
	_, hs := server(t, serve.Options{Data: wild(t), Measures: measures.Explore})
	if body := page(t, hs.URL, "/"); strings.Contains(body, `id="computed-measures"`) || strings.Contains(body, "No overview table") {
		t.Errorf("the analyzed dataset's page:\n%.3000s", body)
	}
}

// In Chromium, the note on the page of an ingest-only dataset is visible
// above the report, and the page loads without a problem.
func TestComputedNoteInChromium(t *testing.T) {
	dir := ingesttest.Dataset(t, filepath.Join(testutil.WildCorpus(t), "logs"))
	_, hs := server(t, serve.Options{Data: dir, Loopback: true, Measures: measures.Explore})
	b := newBrowser(t)
	b.run(t, chromedp.Navigate(hs.URL+"/"), chromedp.WaitReady("body"))
	note := eval[string](t, b, `(() => { const e = document.getElementById('computed-measures'); return e && e.offsetHeight > 0 ? e.innerText : '' })()`)
	if !strings.Contains(note, "not stored in the dataset") || !strings.Contains(note, "empties analyze --data "+dir) {
		t.Errorf("the visible note reads %q", note)
	}
	if eval[bool](t, b, `document.body.innerText.includes('No overview table')`) {
		t.Errorf("the page says there is no overview table")
	}
	geometry(t, b, "computed report")
	for _, p := range b.Problems() {
		t.Error(p)
	}
}
