package reruncmd_test

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	json "github.com/goccy/go-json"

	"empties/internal/cliutil"
	"empties/internal/ingest"
	"empties/internal/planfile"
	"empties/internal/planner"
	"empties/internal/rerun"
	"empties/internal/study"
	"empties/internal/testutil"
	"empties/stages/reruncmd"
	"empties/stages/selectcmd"
)

// python points the runs at the project's Python with this checkout's
// package first on its path, and returns the interpreter.
func python(t *testing.T) string {
	t.Helper()
	py := testutil.Path(t, ".venv", "bin", "python")
	if _, err := os.Stat(py); err != nil {
		t.Fatalf("empties rerun's tests need the project's .venv (make venv): %v", err)
	}
	t.Setenv("PYTHONPATH", testutil.Path(t, "python", "src"))
	t.Setenv("PYTHONDONTWRITEBYTECODE", "1")
	return py
}

func manifestFile(t *testing.T) string { return testutil.Path(t, "data", "study.yaml") }

func harness(t *testing.T) string {
	return testutil.Path(t, "stages", "reruncmd", "testdata", "harness.py")
}

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

// xstest is the demo's XSTest (safe) log of its simulated gpt-5-mini,
// ingested and placed in the study (Data), with its sample ids in order.
type xstest struct {
	Src, Data string
	IDs       []string
	task      string
	args      map[string]any
	model     string
}

func xstestWide(t *testing.T, dir string) xstest {
	t.Helper()
	x := xstest{Src: testutil.Path(t, "data", "demo", "logs", "default", "xstest_safe", "gpt-5-mini-openai-responses.eval"), Data: filepath.Join(dir, "data")}
	ingestRescore(t, x.Data, x.Src)
	row := testutil.Query(t, x.Data, `SELECT task, task_args, model FROM logs`)[0]
	x.task, x.model = row[0], row[2]
	if err := json.Unmarshal([]byte(row[1]), &x.args); err != nil {
		t.Fatal(err)
	}
	for _, r := range testutil.Query(t, x.Data, `SELECT sample_id FROM replies ORDER BY sample_id`) {
		x.IDs = append(x.IDs, r[0])
	}
	return x
}

// group is a wide-arm group of the log's samples ids.
func (x xstest) group(ids []string, settings map[string]any, cost planfile.GroupCost) planfile.Group {
	g := planfile.Group{Eval: "xstest_safe", Route: "gpt-5-mini/openai-responses", Task: x.task, TaskArgs: x.args, Model: x.model, Settings: settings, Epochs: 1,
		Metadata: map[string]string{"empties_arm": "wide", "empties_eval": "xstest_safe", "empties_route": "gpt-5-mini/openai-responses", "empties_part": "A"},
		Cost:     &cost}
	for _, id := range ids {
		g.Samples = append(g.Samples, planfile.Sample{ID: id, IDType: "str", Epoch: 1, OriginalLog: x.Src})
	}
	return g
}

// write writes the wide plan of groups beside the log's dataset, at
// plans/wide.json, and returns it and its log folder.
func (x xstest) write(t *testing.T, groups ...planfile.Group) (planPath, logDir string) {
	t.Helper()
	dir := filepath.Dir(x.Data)
	p := planfile.Plan{Kind: planfile.Wide, Manifest: manifestFile(t), Data: x.Data, Groups: groups}
	planPath = filepath.Join(dir, "plans", "wide.json")
	os.MkdirAll(filepath.Dir(planPath), 0o755)
	b, _ := json.MarshalIndent(p, "", "  ")
	if err := os.WriteFile(planPath, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return planPath, filepath.Join(dir, "plans", "wide")
}

// calls reads the model-under-test calls the test harness recorded.
func calls(t *testing.T, path string) []string {
	t.Helper()
	f, err := os.Open(path)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var c struct {
			ID    string `json:"id"`
			Epoch int    `json:"epoch"`
		}
		if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
			t.Fatal(err)
		}
		out = append(out, c.ID)
	}
	return out
}

// A re-run of the demo's XSTest (safe) samples on its simulated gpt-5-mini,
// one sample at a time, whose plan is priced over the ceiling: refused
// without --allow-over-budget (nothing is created); with it, the Python
// runner is killed outright at the sixth call of the model under test;
// the next run calls the model only for the samples the killed log did not
// finish, and ends with every planned sample in the log; a fourth finds
// nothing to run.
func TestRerunResumesAfterAKillAndKeepsTheBudget(t *testing.T) {
	t.Setenv("EMPTIES_PYTHON", python(t))
	dir := t.TempDir()
	x := xstestWide(t, dir)
	ids := x.IDs
	planPath, logDir := x.write(t, x.group(ids, map[string]any{"max_tokens": 16000, "max_connections": 1, "reasoning_effort": "medium"},
		planfile.GroupCost{EstimateUSD: 150, UpperBoundUSD: 250}))
	callsFile := filepath.Join(dir, "calls.jsonl")
	t.Setenv("EMPTIES_TEST_CALLS", callsFile)
	opts := reruncmd.Options{Config: rerun.Config{Plan: planPath, Manifest: manifestFile(t), Harness: harness(t), LogBuffer: 1, AllowUnpriced: true}}
	run := func(o reruncmd.Options) (string, error) {
		var out bytes.Buffer
		err := reruncmd.Run(context.Background(), o, &out)
		return out.String(), err
	}

	// over the ceiling: refused, nothing run, no log folder made
	out, err := run(opts)
	if err == nil || !strings.Contains(err.Error(), "over budget") || !strings.Contains(err.Error(), "--allow-over-budget") {
		t.Fatalf("a plan over the ceiling: %v\n%s", err, out)
	}
	if _, err := os.Stat(logDir); !os.IsNotExist(err) {
		t.Errorf("a refused plan made its log folder: %v", err)
	}
	if n := len(calls(t, callsFile)); n != 0 {
		t.Errorf("a refused plan called the model %d times", n)
	}
	dry, err := run(reruncmd.Options{Config: rerun.Config{Plan: planPath, Manifest: manifestFile(t), DryRun: true}})
	if err != nil || !strings.Contains(dry, "a real run would be refused") || !strings.Contains(dry, "inspect eval-set inspect_evals/xstest") {
		t.Errorf("dry run: %v\n%s", err, dry)
	}

	// killed at the sixth call: samples one to five are in the log
	opts.AllowOverBudget = true
	t.Setenv("EMPTIES_TEST_KILL_AT", "6")
	out, err = run(opts)
	var partial *cliutil.PartialError
	if !errors.As(err, &partial) {
		t.Fatalf("a killed run: %v, want a partial failure\n%s", err, out)
	}
	first := calls(t, callsFile)
	if len(first) != 6 {
		t.Fatalf("the killed run called the model %d times, want 6: %v", len(first), first)
	}
	killed := filepath.Join(dir, "killed")
	ingestRescore(t, killed, logDir)
	finished := testutil.Query(t, killed, `SELECT sample_id FROM replies WHERE class <> 'error' ORDER BY sample_id`)
	var done []string
	for _, r := range finished {
		done = append(done, r[0])
	}
	if len(done) != 5 {
		t.Fatalf("the killed log holds %d finished samples, want 5: %v", len(done), done)
	}

	// resumed: only the samples the killed log did not finish are run
	t.Setenv("EMPTIES_TEST_KILL_AT", "")
	out, err = run(opts)
	if err != nil {
		t.Fatalf("the resumed run: %v\n%s", err, out)
	}
	second := calls(t, callsFile)[len(first):]
	if len(second) != len(ids)-len(done) {
		t.Errorf("the resumed run called the model %d times, want %d (%d planned, %d finished before): %v", len(second), len(ids)-len(done), len(ids), len(done), second)
	}
	for _, id := range second {
		if slices.Contains(done, id) {
			t.Errorf("sample %s finished before the kill and was run again", id)
		}
	}
	if !strings.Contains(out, "12 planned, 5 in its logs, 7 to run") || !strings.Contains(out, ": 5 in its logs + 7 run now + 0 left = 12 planned (success)") {
		t.Errorf("resumed run's progress:\n%s", out)
	}
	final := filepath.Join(dir, "final")
	ingestRescore(t, final, logDir)
	if n := testutil.Query(t, final, `SELECT count(DISTINCT sample_id) FROM replies r JOIN logs l USING (log_id) WHERE l.set_status = 'counted' AND l.status = 'success'`)[0][0]; n != "12" {
		t.Errorf("the finished log holds %s samples, want 12", n)
	}
	// the samples kept from the killed log are the ones it had finished, as they were
	kept := testutil.Query(t, final, `SELECT count(*) FROM replies r JOIN logs l USING (log_id) WHERE l.set_status = 'counted'
	  AND r.sample_id IN (SELECT unnest(string_split(?, ',')))`, strings.Join(done, ","))[0][0]
	if kept != "5" {
		t.Errorf("%s of the 5 samples finished before the kill are in the final log", kept)
	}
	if a := testutil.Query(t, final, `SELECT DISTINCT arm, part, eval, route FROM log_assignments`); len(a) != 1 || strings.Join(a[0], "|") != "wide|A|xstest_safe|gpt-5-mini/openai-responses" {
		t.Errorf("the re-run's logs are placed at %v", a)
	}

	// finished: nothing is run again, no Python started
	out, err = run(opts)
	if err != nil || !strings.Contains(out, "nothing left to run") {
		t.Errorf("a finished plan: %v\n%s", err, out)
	}
	if n := len(calls(t, callsFile)); n != len(first)+len(second) {
		t.Errorf("a finished plan called the model again (%d calls)", n-len(first)-len(second))
	}
}

// Part B: replies the original run's guard scored without its judge (an
// output overwritten with an empty completion after an answer) are planned
// by select partb, replayed to the eval's judge by rerun (exactly as stored),
// and rescore gives their needs_judge rows the judge's verdict.
func TestPartBGivesNeedsJudgeRowsTheirVerdict(t *testing.T) {
	py := python(t)
	t.Setenv("EMPTIES_PYTHON", py)
	dir := t.TempDir()
	logs := filepath.Join(dir, "logs", "default", "xstest_safe.eval")
	cmd := exec.Command(py, testutil.Path(t, "stages", "reruncmd", "testdata", "needs_judge.py"), logs)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("needs_judge.py: %v\n%s", err, out)
	}
	data := filepath.Join(dir, "data")
	ingestRescore(t, data, filepath.Join(dir, "logs"))
	need := testutil.Query(t, data, `SELECT count(DISTINCT (sample_id, epoch)) FROM policy_scores WHERE needs_judge`)[0][0]
	if need == "0" {
		t.Fatal("the log has no reply that needs a judge")
	}
	texts := map[string]string{}
	for _, r := range testutil.Query(t, data, `SELECT DISTINCT r.sample_id, r.text FROM replies r JOIN policy_scores p USING (log_id, sample_id, epoch) WHERE p.needs_judge`) {
		texts[r[0]] = r[1]
	}
	planOut := filepath.Join(dir, "plans", "partb")
	os.MkdirAll(filepath.Dir(planOut), 0o755)
	var sel bytes.Buffer
	if err := selectcmd.Run(context.Background(), selectcmd.Options{Config: planner.Config{Kind: "partb", Data: data, ManifestPath: manifestFile(t)}, Out: planOut}, &sel); err != nil {
		t.Fatal(err)
	}
	p, err := planfile.Read(planOut + ".json")
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Groups) != 1 || itoa(p.Size.Samples) != need || p.Groups[0].Metadata["empties_part"] != "B" {
		t.Fatalf("partb plan: %d groups, %d samples (want %s)\n%s", len(p.Groups), p.Size.Samples, need, sel.String())
	}
	judged := filepath.Join(dir, "judged.jsonl")
	t.Setenv("EMPTIES_TEST_JUDGED", judged)
	t.Setenv("EMPTIES_TEST_CALLS", filepath.Join(dir, "calls.jsonl"))
	var out bytes.Buffer
	if err := reruncmd.Run(context.Background(), reruncmd.Options{Config: rerun.Config{Plan: planOut + ".json", Manifest: manifestFile(t), Harness: harness(t), AllowUnpriced: true}}, &out); err != nil {
		t.Fatalf("rerun partb: %v\n%s", err, out.String())
	}
	if c := calls(t, filepath.Join(dir, "calls.jsonl")); len(c) != 0 {
		t.Errorf("a Part B replay called the model under test %d times", len(c))
	}
	// the judge was shown each stored reply as it is
	b, _ := os.ReadFile(judged)
	prompts := strings.Split(strings.TrimSpace(string(b)), "\n")
	if itoa(len(prompts)) != need {
		t.Errorf("the judge was called %d times, want %s", len(prompts), need)
	}
	for _, line := range prompts {
		var j struct{ ID, Prompt string }
		json.Unmarshal([]byte(line), &j)
		id := strings.SplitN(j.ID, "__e", 2)[0]
		if text, ok := texts[id]; !ok || !strings.Contains(j.Prompt, text) {
			t.Errorf("judge call for %s: the prompt does not hold the stored reply %q", j.ID, texts[id])
		}
	}
	after := filepath.Join(dir, "after")
	ingestRescore(t, after, filepath.Join(dir, "logs"), planOut)
	rows := testutil.Query(t, after, `SELECT p.reason, p.needs_judge, p.value_json, count(*) FROM policy_scores p JOIN log_assignments a USING (log_id)
	  WHERE a.part = 'A' AND p.policy <> 'P0' AND p.reason IN ('needs_judge', 'part_b_judge') GROUP BY ALL ORDER BY ALL`)
	if len(rows) != 1 || rows[0][0] != "part_b_judge" || rows[0][1] != "false" || rows[0][2] != `"C"` {
		t.Errorf("the rows that needed a judge, after Part B: %v", rows)
	}
	if n := testutil.Query(t, data, `SELECT sum(n_needs_judge) FROM headlines WHERE policy = 'P3'`)[0][0]; n != need {
		t.Errorf("before Part B the P3 headline counts %s samples that need a judge, want %s", n, need)
	}
	if h := testutil.Query(t, after, `SELECT n_samples, n_scored, n_needs_judge FROM headlines WHERE policy = 'P3'`); len(h) != 1 || h[0][0] != "12" || h[0][2] != "0" {
		t.Errorf("the P3 headline after Part B (samples, scored, needing a judge): %v; want the 12 samples of the log, none needing a judge", h)
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

// Every flag is checked before any work: a mistake is a usage error (exit
// 2) naming what is wrong, and nothing is read, made or run.
func TestFlagsAreCheckedBeforeWork(t *testing.T) {
	dir := t.TempDir()
	planPath := filepath.Join(dir, "partc.json")
	os.WriteFile(planPath, []byte(`{"kind": "partc", "groups": [{"eval": "xstest_safe", "task": "inspect_evals/xstest", "samples": [{"id": "1", "id_type": "int", "forms": [{"name": "empty", "text": "", "repeats": 1}]}]}]}`), 0o644)
	ok := reruncmd.Options{Config: rerun.Config{Plan: planPath, Manifest: manifestFile(t), Python: "/bin/sh"}}
	with := func(f func(*reruncmd.Options)) reruncmd.Options { o := ok; f(&o); return o }
	for _, c := range []struct {
		name string
		opts reruncmd.Options
		want string
	}{
		{"no plan named", with(func(o *reruncmd.Options) { o.Plan = "" }), "name the plan to run"},
		{"a missing plan", with(func(o *reruncmd.Options) { o.Plan = filepath.Join(dir, "none.json") }), filepath.Join(dir, "none.json") + ": no such plan"},
		{"a plan that is not JSON", with(func(o *reruncmd.Options) {
			o.Plan = filepath.Join(dir, "notes.json")
			os.WriteFile(o.Plan, []byte("rerun these tomorrow"), 0o644)
		}), "notes.json: not a plan of empties select"},
		{"a plan of an unknown kind", with(func(o *reruncmd.Options) {
			o.Plan = filepath.Join(dir, "odd.json")
			os.WriteFile(o.Plan, []byte(`{"kind": "sideways", "groups": []}`), 0o644)
		}), `plan kind "sideways"`},
		{"a plan not ending in .json", with(func(o *reruncmd.Options) {
			o.Plan = planPath + ".bak"
			os.WriteFile(o.Plan, []byte(`{"kind": "partc", "groups": []}`), 0o644)
		}), "give the log folder with --log-dir"},
		{"a negative log buffer", with(func(o *reruncmd.Options) { o.LogBuffer = -1 }), "--log-buffer -1"},
		{"a dataset that is not there", with(func(o *reruncmd.Options) { o.Data = filepath.Join(dir, "nodata") }), "nodata: no such folder"},
		{"a harness that is not there", with(func(o *reruncmd.Options) { o.Harness = filepath.Join(dir, "h.py") }), "--harness " + filepath.Join(dir, "h.py") + ": no such file"},
		{"a Python that is not there", with(func(o *reruncmd.Options) { o.Python = filepath.Join(dir, "python") }), "Python " + filepath.Join(dir, "python") + ": no such program"},
	} {
		var out bytes.Buffer
		err := reruncmd.Run(context.Background(), c.opts, &out)
		var usage *cliutil.UsageError
		if !errors.As(err, &usage) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want a usage error saying %q", c.name, err, c.want)
		}
		if _, err := os.Stat(filepath.Join(dir, "partc")); !os.IsNotExist(err) {
			t.Errorf("%s: the log folder was made", c.name)
		}
		if out.Len() > 0 {
			t.Errorf("%s: work began:\n%s", c.name, out.String())
		}
	}
}

// Names are data, never paths, and money is counted conservatively: a plan
// or a manifest that would write outside the log folder or walk past the
// budget is refused before any work, naming the group and the field, with
// exit code 2 (a usage error); the user's files are untouched and no log
// folder is made.
func TestNamesAndMoneyAreCheckedBeforeWork(t *testing.T) {
	dir := t.TempDir()
	victim := testutil.NewUserTree(t, filepath.Join(dir, "victim"))
	group := func(eval, route, cost string) string {
		return `{"eval": "` + eval + `", "route": "` + route + `", "task": "inspect_evals/xstest", "model": "openai/gpt-5-mini", "epochs": 1,` +
			` "metadata": {"empties_arm": "wide"}, "cost": ` + cost + `, "samples": [{"id": "1", "id_type": "int", "epoch": 1}]}`
	}
	write := func(name, kind string, groups ...string) string {
		p := filepath.Join(dir, "plans", name+".json")
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte(`{"kind": "`+kind+`", "groups": [`+strings.Join(groups, ", ")+`]}`), 0o644)
		return p
	}
	free := `{"estimate_usd": 0.01, "upper_bound_usd": 0.02}`
	// a copy of the study's manifest with a budget that is not a number
	nan := filepath.Join(dir, "nan", "study.yaml")
	os.CopyFS(filepath.Dir(nan), os.DirFS(testutil.Path(t, "data")))
	b, _ := os.ReadFile(nan)
	os.WriteFile(nan, []byte(strings.Replace(string(b), "ceiling_usd: 200", "ceiling_usd: .nan", 1)), 0o644)
	// a log folder of rerun's in which a group's folder is a symlink to the user's
	planted := write("planted", "wide", group("xstest_safe", "gpt-5-mini/openai-responses", free))
	os.MkdirAll(filepath.Join(dir, "plans", "planted"), 0o755)
	os.WriteFile(filepath.Join(dir, "plans", "planted", ".empties-logs"), []byte(`{"format": "empties log folder", "command": "rerun", "writer": "x"}`), 0o644)
	os.Symlink(victim.Dir, filepath.Join(dir, "plans", "planted", "xstest_safe"))
	cases := []struct {
		name string
		opts reruncmd.Options
		want []string
	}{
		{"an eval that leaves the log folder", reruncmd.Options{Config: rerun.Config{Plan: write("escape", "wide", group("../../victim", "a/b", free))}},
			[]string{"group 1 (../../victim a/b)", `eval "../../victim" is not a name`}},
		{"a route that climbs to the root, in a dry run", reruncmd.Options{Config: rerun.Config{Plan: write("root", "wide", group("x", "../../../..", free)), DryRun: true}},
			[]string{"group 1 (x ../../../..)", `route "../../../..": part ".." is not a name`}},
		{"an absolute eval", reruncmd.Options{Config: rerun.Config{Plan: write("abs", "control", group("/etc", "a/b", free))}}, []string{`eval "/etc" is not a name`}},
		{"a group folder symlinked outside", reruncmd.Options{Config: rerun.Config{Plan: planted}}, []string{"group 1 (wide xstest_safe × gpt-5-mini/openai-responses)", "outside the log folder"}},
		{"a negative upper bound", reruncmd.Options{Config: rerun.Config{Plan: write("negative", "wide", group("x", "a/b", `{"estimate_usd": 0, "upper_bound_usd": -1000}`))}},
			[]string{"group 1 (x a/b): cost.upper_bound_usd is -1000"}},
		{"a ceiling that is not a number", reruncmd.Options{Config: rerun.Config{Plan: write("ok", "wide", group("x", "a/b", free)), Manifest: nan, DryRun: true}},
			[]string{"budget: ceiling_usd is NaN"}},
	}
	before := testutil.Snapshot(t, dir)
	for _, c := range cases {
		if c.opts.Manifest == "" {
			c.opts.Manifest = manifestFile(t)
		}
		c.opts.Python = "/bin/sh"
		var out bytes.Buffer
		err := reruncmd.Run(context.Background(), c.opts, &out)
		var usage *cliutil.UsageError
		if !errors.As(err, &usage) {
			t.Errorf("%s: %v, want a usage error (exit 2)\n%s", c.name, err, out.String())
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: %v, want it to say %q", c.name, err, w)
			}
		}
		if out.Len() > 0 {
			t.Errorf("%s: work began:\n%s", c.name, out.String())
		}
	}
	victim.Check(t, "plans naming the user's folder")
	testutil.SameTree(t, "refused plans", before, testutil.Snapshot(t, dir))
}

// The manifest's check of its pre-registration names its override
// ("override with --allow-prereg-mismatch"), and rerun takes it, as every
// stage that loads the manifest does; it refused the flag.
func TestRerunTakesThePreregOverride(t *testing.T) {
	dir := t.TempDir()
	studyDir := filepath.Join(dir, "data")
	if err := os.CopyFS(studyDir, os.DirFS(testutil.Path(t, "data"))); err != nil {
		t.Fatal(err)
	}
	prereg := filepath.Join(studyDir, "preregistration.txt")
	b, err := os.ReadFile(prereg)
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(prereg, append(b, "\nAn amendment.\n"...), 0o644)
	planPath := filepath.Join(dir, "partc.json")
	os.WriteFile(planPath, []byte(`{"kind": "partc", "groups": [{"eval": "xstest_safe", "task": "inspect_evals/xstest", "samples": [{"id": "1", "id_type": "int", "forms": [{"name": "empty", "text": "", "repeats": 1}]}]}]}`), 0o644)
	opts := reruncmd.Options{Config: rerun.Config{Plan: planPath, Manifest: filepath.Join(studyDir, "study.yaml"), DryRun: true}}
	var out bytes.Buffer
	if err := reruncmd.Run(context.Background(), opts, &out); err == nil || !strings.Contains(err.Error(), "override with --allow-prereg-mismatch") {
		t.Fatalf("a pre-registration that differs: %v, want the manifest's refusal", err)
	}
	opts.AllowPreregMismatch = true
	if err := reruncmd.Run(context.Background(), opts, &out); err != nil || !strings.Contains(out.String(), "dry run") {
		t.Fatalf("with the override: %v\n%s", err, out.String())
	}
}
