package selectcmd_test

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"empties/internal/ingest"
	"empties/internal/manifest"
	"empties/internal/measures"
	"empties/internal/planfile"
	"empties/internal/planner"
	"empties/internal/store"
	"empties/internal/study"
	"empties/internal/testutil"
	"empties/stages/selectcmd"
)

// The demo (data/demo) is a miniature study written by the real inspect_ai:
// a default arm, and wide, control and Part C logs written from the plans
// `empties select` made for it (scripts/demo/make_demo.py).
var (
	demoOnce sync.Once
	demoDir  string
	demoErr  error
)

func demo(t *testing.T) string {
	t.Helper()
	demoOnce.Do(func() {
		demoDir, demoErr = os.MkdirTemp("", "empties-demo-*")
		if demoErr != nil {
			return
		}
		ctx := context.Background()
		demoErr = ingest.Build(ctx, ingest.Config{Paths: []string{testutil.Path(t, "data", "demo", "logs")}, Out: demoDir})
		if demoErr == nil {
			_, demoErr = study.Rescore(ctx, study.Config{Data: demoDir, Manifest: manifestFile(t)})
		}
	})
	if demoErr != nil {
		t.Fatal(demoErr)
	}
	return demoDir
}

func manifestFile(t *testing.T) string { return testutil.Path(t, "data", "study.yaml") }

func plan(t *testing.T, kind, data string) (planfile.Plan, []byte) {
	t.Helper()
	out := filepath.Join(t.TempDir(), kind)
	var log bytes.Buffer
	if err := selectcmd.Run(context.Background(), selectcmd.Options{Config: planner.Config{Kind: kind, Data: data, ManifestPath: manifestFile(t)}, Out: out}, &log); err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(out + ".json")
	if err != nil {
		t.Fatal(err)
	}
	var p planfile.Plan
	if err := json.Unmarshal(raw, &p); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(out + ".md"); err != nil {
		t.Errorf("no Markdown plan: %v", err)
	}
	// the JSON names its output paths; compare plans without them
	return p, bytes.ReplaceAll(raw, []byte(out), nil)
}

func TestWidePlanTakesEveryTruncation(t *testing.T) {
	data := demo(t)
	p, raw := plan(t, "wide", data)
	want := testutil.Query(t, data, `SELECT count(*) FROM reply_outcomes WHERE arm = 'default' AND part = 'A' AND class = 'truncated_empty'`)[0][0]
	if got := p.Size.Samples; want == "0" || itoa(got) != want {
		t.Fatalf("wide plan: %d samples, the default arm has %s truncated_empty replies", got, want)
	}
	for _, g := range p.Groups {
		if g.Task == "" || g.Model == "" || g.Cost == nil || g.Cost.UpperBoundUSD < g.Cost.EstimateUSD {
			t.Errorf("%s × %s: task %q, model %q, cost %+v", g.Eval, g.Route, g.Task, g.Model, g.Cost)
		}
		if !strings.Contains(g.Command, "--max-tokens 16000") || !strings.Contains(g.Command, "--metadata empties_arm=wide") ||
			!strings.Contains(g.Command, "--metadata empties_route="+g.Route) || !strings.HasPrefix(g.Command, "inspect eval ") {
			t.Errorf("%s × %s: command %q", g.Eval, g.Route, g.Command)
		}
		for _, s := range g.Samples {
			if s.OriginalClass != "truncated_empty" || s.OriginalLog == "" {
				t.Errorf("%s × %s: sample %+v", g.Eval, g.Route, s)
			}
		}
	}
	if p.Cost.CeilingUSD != 200 || p.Cost.UpperBoundUSD < p.Cost.EstimateUSD || p.Cost.SpentUSD <= 0 {
		t.Errorf("cost: %+v", p.Cost)
	}
	_, again := plan(t, "wide", data)
	if !bytes.Equal(raw, again) {
		t.Errorf("two wide plans from the same data differ")
	}
}

func TestControlDrawIsSeededAndSized(t *testing.T) {
	data := demo(t)
	p, raw := plan(t, "control", data)
	if p.Size.Samples != 50 {
		t.Fatalf("control plan: %d replies, the manifest asks for 50", p.Size.Samples)
	}
	nonAnswers := map[string]bool{"filtered": true, "refusal_flag": true, "error_text": true, "truncated_empty": true,
		"reasoning_only": true, "silent": true, "tool_only": true}
	for _, g := range p.Groups {
		for _, s := range g.Samples {
			if !nonAnswers[s.OriginalClass] {
				t.Errorf("control drew a %s reply", s.OriginalClass)
			}
		}
		// the original run's settings, unchanged: its max_tokens (or none)
		orig := testutil.Query(t, data, `SELECT coalesce(max_tokens::VARCHAR, '') FROM logs WHERE path = ?`, g.Samples[0].OriginalLog)[0][0]
		mt, set := g.Settings["max_tokens"]
		if (orig == "") == set || set && orig != strconv.FormatFloat(mt.(float64), 'f', -1, 64) {
			t.Errorf("control changes settings: max_tokens %v, the original %q: %s", mt, orig, g.Command)
		}
	}
	_, again := plan(t, "control", data)
	if !bytes.Equal(raw, again) {
		t.Errorf("the same data and seed drew two control sets")
	}
}

func TestPartCFormsReachOnlyWhatTheGuardLetsThrough(t *testing.T) {
	data := demo(t)
	p, _ := plan(t, "partc", data)
	sizes := map[string][2]int{"strong_reject": {40, 3}, "coconot_original": {40, 3}, "xstest_safe": {40, 3},
		"hle_text": {40, 3}, "fortress_benign": {40, 3}, "fortress_adversarial": {20, 2}}
	guarded := map[string]bool{"xstest_safe": true, "hle_text": true, "fortress_benign": true, "fortress_adversarial": true}
	if len(p.Groups) != len(sizes) {
		t.Fatalf("part C judges: %d", len(p.Groups))
	}
	for _, g := range p.Groups {
		if g.Task == "" || g.Epochs != 1 || g.Model != "" || g.Judge == "" {
			t.Errorf("%s: task %q, epochs %d, model %q, judge %q: want the eval's task, one epoch per replayed repeat, no model under test, its judge", g.Eval, g.Task, g.Epochs, g.Model, g.Judge)
		}
		want := sizes[g.Eval]
		available := testutil.Query(t, data, `SELECT count(DISTINCT sample_id) FROM reply_outcomes WHERE eval = ? AND arm = 'default' AND part = 'A'`, g.Eval)[0][0]
		if n := len(g.Samples); itoa(n) != available && n != want[0] {
			t.Errorf("%s: %d samples (want %d, or all %s available)", g.Eval, n, want[0], available)
		}
		for _, s := range g.Samples {
			names := map[string]bool{}
			for _, f := range s.Forms {
				names[f.Name] = true
				if f.Repeats != want[1] {
					t.Errorf("%s: form %s × %d, want %d repeats", g.Eval, f.Name, f.Repeats, want[1])
				}
			}
			if guarded[g.Eval] == (names["empty"] || names["whitespace"]) {
				t.Errorf("%s (guarded %v): forms %v", g.Eval, guarded[g.Eval], names)
			}
			if len(s.Forms) < 4 {
				t.Errorf("%s: only %d forms", g.Eval, len(s.Forms))
			}
		}
	}
}

// Pairing: after the plans are recorded, the demo's deliberate mismatches
// are reported: a wide re-run nobody planned, and a planned re-run left out
// (data/demo/README.md).
func TestPairingReportsBothMismatches(t *testing.T) {
	src := demo(t)
	data := t.TempDir()
	copyDataset(t, src, data)
	plan(t, "wide", data)
	plan(t, "control", data)
	if _, err := study.Rescore(context.Background(), study.Config{Data: data, Manifest: manifestFile(t)}); err != nil {
		t.Fatal(err)
	}
	rows := testutil.Query(t, data, `SELECT status, arm, eval, route, sample_id FROM reruns WHERE status <> 'paired' ORDER BY ALL`)
	want := [][]string{
		{"no_original", "wide", "hle_text", "claude-sonnet-5/openrouter", "hle_09bb82ac"},
		{"not_rerun", "wide", "xstest_safe", "gpt-5-mini/openai-responses", "xstest_e8df507b"},
	}
	if len(rows) != len(want) {
		t.Fatalf("mismatches: %v", rows)
	}
	for i := range want {
		if strings.Join(rows[i], "|") != strings.Join(want[i], "|") {
			t.Errorf("mismatch %d: %v, want %v", i, rows[i], want[i])
		}
	}
	paired := testutil.Query(t, data, `SELECT count(*) FROM reruns WHERE status = 'paired' AND orig_class IS NOT NULL AND rerun_class IS NOT NULL`)[0][0]
	if paired == "0" {
		t.Error("no re-run paired with its original")
	}
}

// judge_tests: one row per judge × form × sample × repeat of the Part C
// replay logs, with the pass verdict from the profile.
func TestJudgeTestsRows(t *testing.T) {
	data := demo(t)
	rows := testutil.Query(t, data, `SELECT eval, count(*), count(DISTINCT form), count(passed), count(*) FILTER (judge_model = '')
	  FROM judge_tests GROUP BY eval ORDER BY eval`)
	if len(rows) != 6 {
		t.Fatalf("judge_tests by eval: %v", rows)
	}
	for _, r := range rows {
		if r[2] != "4" && r[2] != "6" || r[3] == "0" || r[4] != "0" {
			t.Errorf("%s: rows %s, forms %s, verdicts with pass %s, without judge %s", r[0], r[1], r[2], r[3], r[4])
		}
	}
	if n := testutil.Query(t, data, `SELECT count(*) FROM headlines h JOIN log_assignments a ON a.route = h.route WHERE a.part = 'C'`)[0][0]; n != "0" {
		t.Errorf("Part C replays reached %s headline rows; they are judge tests, not replies", n)
	}
	empty := testutil.Query(t, data, `SELECT count(*) FROM judge_tests j WHERE form = 'empty' AND eval IN ('xstest_safe', 'hle_text')`)[0][0]
	if empty != "0" {
		t.Errorf("a guarded judge was tested on the empty form %s times", empty)
	}
}

func copyDataset(t *testing.T, src, dst string) {
	t.Helper()
	ds, err := store.Create(testutil.Fixture, dst)
	if err != nil {
		t.Fatal(err)
	}
	defer ds.Close()
	for _, table := range store.Tables(src) {
		td, err := ds.TableDir(table)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range store.TableFiles(src, table) {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(td, filepath.Base(f)), b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := ds.Commit(); err != nil {
		t.Fatal(err)
	}
	if !store.HasTable(dst, "replies") {
		t.Fatal("copy has no replies")
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

func TestMain(m *testing.M) {
	code := m.Run()
	if demoDir != "" {
		os.RemoveAll(demoDir)
	}
	os.Exit(code)
}

// A plan prices calls as the cost table does (one price, sql/macros/call_cost.sql):
// what it says was spent is the cost table's total, and a wide re-run's
// estimate is what its original call cost.
func TestPlanPricesAgreeWithTheCostTable(t *testing.T) {
	data := filepath.Join(t.TempDir(), "data")
	copyDataset(t, demo(t), data)
	ctx := context.Background()
	if err := measures.Run(ctx, measures.Config{Data: data, Manifest: manifestFile(t)}, io.Discard); err != nil {
		t.Fatal(err)
	}
	p, _ := plan(t, "wide", data)
	total := testutil.Query(t, data, "SELECT sum(cost_usd) FROM cost")[0][0]
	if got := strconv.FormatFloat(p.Cost.SpentUSD, 'g', 12, 64); total == "" || !sameUSD(t, got, total) {
		t.Errorf("the plan says $%s was spent, the cost table $%s", got, total)
	}
	m, err := manifest.Load(manifestFile(t), manifest.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var calls, want float64
	err = measures.Query(ctx, data, measures.ParamsFrom(m), []string{"priced_calls"}, func(c *sql.Conn) error {
		return c.QueryRowContext(ctx, `SELECT count(*), sum(p.cost_usd) FROM priced_calls p
		  JOIN reply_outcomes o USING (log_id, sample_id, epoch)
		  WHERE p.role = 'model_under_test' AND NOT p.local_cache AND o.arm = 'default' AND o.part = 'A' AND o.class = 'truncated_empty'`).Scan(&calls, &want)
	})
	if err != nil {
		t.Fatal(err)
	}
	if int(calls) != p.Size.Calls || math.Abs(p.Cost.EstimateUSD-want) > 1e-12 {
		t.Errorf("wide plan: %d calls, $%.12g; the cost table prices those calls (%v) at $%.12g", p.Size.Calls, p.Cost.EstimateUSD, calls, want)
	}
}

func sameUSD(t *testing.T, a, b string) bool {
	t.Helper()
	x, err1 := strconv.ParseFloat(a, 64)
	y, err2 := strconv.ParseFloat(b, 64)
	return err1 == nil && err2 == nil && math.Abs(x-y) <= 1e-9
}

// The manifest's check of its pre-registration names its override
// ("override with --allow-prereg-mismatch"), and select takes it, as every
// stage that loads the manifest does; it refused the flag.
func TestSelectTakesThePreregOverride(t *testing.T) {
	data := demo(t)
	studyDir := filepath.Join(t.TempDir(), "data")
	if err := os.CopyFS(studyDir, os.DirFS(testutil.Path(t, "data"))); err != nil {
		t.Fatal(err)
	}
	prereg := filepath.Join(studyDir, "preregistration.txt")
	b, err := os.ReadFile(prereg)
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(prereg, append(b, "\nAn amendment.\n"...), 0o644)
	opts := selectcmd.Options{Config: planner.Config{Kind: "partc", Data: data, ManifestPath: filepath.Join(studyDir, "study.yaml")}, Out: filepath.Join(t.TempDir(), "partc")}
	var log bytes.Buffer
	if err := selectcmd.Run(context.Background(), opts, &log); err == nil || !strings.Contains(err.Error(), "override with --allow-prereg-mismatch") {
		t.Fatalf("a pre-registration that differs: %v, want the manifest's refusal", err)
	}
	opts.AllowPreregMismatch = true
	if err := selectcmd.Run(context.Background(), opts, &log); err != nil {
		t.Fatalf("with the override: %v", err)
	}
	if want := "--manifest " + opts.ManifestPath + " --allow-prereg-mismatch`"; !strings.Contains(log.String(), want) {
		t.Errorf("the command it prints lacks the override %q:\n%s", want, log.String())
	}
}
