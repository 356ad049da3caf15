package rerun_test

import (
	"context"
	"io"
	"path/filepath"
	"strings"
	"testing"

	json "github.com/goccy/go-json"

	"empties/internal/ingest"
	"empties/internal/manifest"
	"empties/internal/measures"
	"empties/internal/study"
	"empties/internal/testutil"
)

func manifestFile(t *testing.T) string { return testutil.Path(t, "data", "study.yaml") }

func ingestRescore(t *testing.T, out string, logs ...string) {
	t.Helper()
	ctx := context.Background()
	if err := ingest.Build(ctx, ingest.Config{Paths: logs, Out: out}); err != nil {
		t.Fatal(err)
	}
	if _, err := study.Rescore(ctx, study.Config{Data: out, Manifest: manifestFile(t)}); err != nil {
		t.Fatal(err)
	}
}

// The demo's D4 comes from replay logs: every Part C verdict (judge_tests,
// and d4_judge_behaviour over it) is read from a log `empties rerun` wrote,
// in which no model under test was called (none/none, no call of its own),
// the reply is the replayed form exactly as the manifest gives it (the empty
// and whitespace forms too, never inspect's "(no content)" placeholder), and
// the replay solver recorded what it set.
func TestDemoD4ComesFromReplayLogs(t *testing.T) {
	data := filepath.Join(t.TempDir(), "data")
	logs := testutil.Path(t, "data", "demo", "logs")
	ingestRescore(t, data, logs)
	m, err := manifest.Load(manifestFile(t), manifest.Options{})
	if err != nil {
		t.Fatal(err)
	}
	forms := map[string]string{}
	for _, f := range m.PartC.Forms {
		forms[f.Name] = f.Text
	}

	partc := filepath.Join(logs, "partc") + "/"
	tests := testutil.Query(t, data, `SELECT l.path, l.model, count(*) FROM judge_tests j JOIN logs l USING (log_id) GROUP BY ALL ORDER BY 1`)
	if len(tests) != 6 {
		t.Fatalf("judge tests come from %d logs, want the 6 Part C replay logs: %v", len(tests), tests)
	}
	for _, r := range tests {
		if !strings.HasPrefix(r[0], partc) || r[1] != "none/none" {
			t.Errorf("judge tests from %s (model %s), not a replay log of %s", r[0], r[1], partc)
		}
	}
	if n := testutil.Query(t, data, `SELECT count(*) FROM model_calls c JOIN log_assignments a USING (log_id) WHERE a.part = 'C' AND c.kind = 'model_under_test'`)[0][0]; n != "0" {
		t.Errorf("the Part C logs hold %s calls of a model under test", n)
	}
	rows := testutil.Query(t, data, `SELECT r.sample_id, r.reply_source, r.text, r.sample_metadata FROM replies r JOIN log_assignments a USING (log_id) WHERE a.part = 'C'`)
	seen := map[string]int{}
	for _, r := range rows {
		var md struct {
			Form     string  `json:"empties_form"`
			Replayed *string `json:"empties_replayed"`
			Repeat   int     `json:"empties_repeat"`
		}
		if err := json.Unmarshal([]byte(r[3]), &md); err != nil {
			t.Fatalf("sample %s: metadata %q: %v", r[0], r[3], err)
		}
		want, ok := forms[md.Form]
		switch {
		case !ok:
			t.Errorf("sample %s: form %q is not one of the manifest's", r[0], md.Form)
		case r[1] != "sample_output":
			t.Errorf("sample %s: reply read from %s, want the replayed output (sample_output)", r[0], r[1])
		case r[2] != want || md.Replayed == nil || *md.Replayed != want:
			t.Errorf("sample %s (%s): stored reply %q, replayed %v, want the form %q", r[0], md.Form, r[2], md.Replayed, want)
		case md.Repeat < 1:
			t.Errorf("sample %s: no repeat in its metadata", r[0])
		}
		seen[md.Form]++
	}
	if seen["empty"] == 0 || seen["whitespace"] == 0 {
		t.Errorf("the replays hold no empty or whitespace form (%v)", seen)
	}

	if err := measures.Run(context.Background(), measures.Config{Data: data, Manifest: manifestFile(t)}, io.Discard); err != nil {
		t.Fatal(err)
	}
	d4 := testutil.Query(t, data, `SELECT (SELECT sum(n_verdicts) FROM d4_judge_behaviour WHERE pooled), (SELECT count(*) FROM judge_tests), (SELECT count(*) FROM replies r JOIN log_assignments a USING (log_id) WHERE a.part = 'C')`)[0]
	if d4[0] != d4[1] || d4[1] != d4[2] {
		t.Errorf("d4_judge_behaviour counts %s verdicts, judge_tests has %s, the replay logs %s replies", d4[0], d4[1], d4[2])
	}
}
