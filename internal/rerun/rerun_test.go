package rerun

import (
	"bytes"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"empties/internal/planfile"
)

func text(s string) *string { return &s }

func TestBuildGroups(t *testing.T) {
	meta := func(arm, part string) map[string]string {
		return map[string]string{"empties_arm": arm, "empties_part": part, "empties_eval": "hle_text"}
	}
	wide := &planfile.Plan{Kind: planfile.Wide, Groups: []planfile.Group{
		{Eval: "gpqa_diamond", Route: "gpt-5-mini/openai-responses", Task: "inspect_evals/gpqa_diamond", Model: "openai/gpt-5-mini", Epochs: 3,
			Settings: map[string]any{"max_tokens": 16000.0}, Metadata: meta("wide", "A"),
			Samples: []planfile.Sample{{ID: "rec1", IDType: "str", Epoch: 1}, {ID: "rec1", IDType: "str", Epoch: 3}, {ID: "7", IDType: "int", Epoch: 2}},
			Cost:    &planfile.GroupCost{EstimateUSD: 1, UpperBoundUSD: 2}},
		// a second log of the same eval × route gets a folder of its own
		{Eval: "gpqa_diamond", Route: "gpt-5-mini/openai-responses", Task: "inspect_evals/gpqa_diamond", Model: "openai/gpt-5-mini", Epochs: 1,
			Metadata: meta("wide", "A"), Samples: []planfile.Sample{{ID: "rec2", IDType: "str", Epoch: 1}}},
		{Eval: "hle_text", Route: "x/y", Task: "t", Model: "m", Metadata: meta("wide", "A")}, // no samples: left out
	}}
	gs := Build(wide, "/logs/wide", []string{"demo"})
	if len(gs) != 2 {
		t.Fatalf("%d groups", len(gs))
	}
	g := gs[0]
	if g.LogDir != filepath.Join("/logs/wide", "gpqa_diamond", "gpt-5-mini-openai-responses") || gs[1].LogDir != g.LogDir+"-2" {
		t.Errorf("log folders %s, %s", g.LogDir, gs[1].LogDir)
	}
	if len(g.SampleIDs) != 2 || g.SampleIDs[0] != "rec1" || g.SampleIDs[1] != int64(7) || g.Epochs != 3 || g.Planned != 6 || g.Replays() {
		t.Errorf("ids %#v, epochs %d, planned %d (every epoch up to the highest planned one)", g.SampleIDs, g.Epochs, g.Planned)
	}
	if g.Cost.UpperBoundUSD != 2 || g.Tags[0] != "demo" || g.Index != 1 || gs[1].Index != 2 {
		t.Errorf("group %+v", g)
	}
	cmd := Command(g)
	for _, want := range []string{"inspect eval-set inspect_evals/gpqa_diamond", "--model openai/gpt-5-mini", "--sample-id rec1,7", "--epochs 3", "--max-tokens 16000", "--metadata empties_arm=wide", "--tags demo"} {
		if !strings.Contains(cmd, want) {
			t.Errorf("command %q lacks %q", cmd, want)
		}
	}

	partc := &planfile.Plan{Kind: planfile.PartC, Groups: []planfile.Group{{Eval: "hle_text", Task: "inspect_evals/hle", Epochs: 1, Metadata: meta("default", "C"),
		TaskArgs: map[string]any{"include_multi_modal": false}, ModelRoles: map[string]any{"grader": map[string]any{"model": "openai/judge", "config": map[string]any{}}},
		Samples: []planfile.Sample{{ID: "3", IDType: "int", Forms: []planfile.Form{{Name: "empty", Text: "", Repeats: 2}, {Name: "blocked", Text: "BLOCKED", Repeats: 2}}}}}}}
	c := Build(partc, "/logs/partc", nil)[0]
	if c.Model != "" || c.Epochs != 1 || !c.Replays() || c.Planned != 4 || c.LogDir != filepath.Join("/logs/partc", "hle_text") || len(c.SampleIDs) != 0 {
		t.Fatalf("part C group %+v", c)
	}
	r := c.Replay[1]
	if r.ID != int64(3) || r.NewID != "3__empty__r2" || r.Text != "" || r.Metadata["empties_form"] != "empty" || r.Metadata["empties_repeat"] != 2 || r.Metadata["empties_sample_id"] != "3" {
		t.Errorf("replay %+v", r)
	}
	if cmd := Command(c); !strings.Contains(cmd, "--model none/none") || !strings.Contains(cmd, "--solver empties/replay") ||
		!strings.Contains(cmd, "--model-role grader=openai/judge") || !strings.Contains(cmd, "4 replayed samples") {
		t.Errorf("part C command %q", cmd)
	}

	partb := &planfile.Plan{Kind: planfile.PartB, Groups: []planfile.Group{{Eval: "xstest_safe", Route: "r/a", Task: "inspect_evals/xstest", Model: "m", Metadata: meta("tight", "B"),
		Samples: []planfile.Sample{{ID: "s", IDType: "str", Epoch: 2, OriginalEvalID: "E1", Text: text("Paris.")}}}}}
	b := Build(partb, "/logs/partb", nil)[0]
	if b.LogDir != filepath.Join("/logs/partb", "xstest_safe", "r-a-tight") || b.Replay[0].NewID != "s__e2" || b.Replay[0].Text != "Paris." ||
		b.Replay[0].Metadata["empties_original_eval_id"] != "E1" || b.Replay[0].Metadata["empties_epoch"] != int64(2) || b.Model != "m" {
		t.Errorf("part B group %+v", b)
	}
}

// The gate: what was spent plus the upper bound of what is left, where a
// group's share left is the share of its planned records not yet logged.
func TestBudget(t *testing.T) {
	b := Budget{CeilingUSD: 10, SpentDataUSD: 4, SpentLogsUSD: 1, SpentOtherUSD: 0.5}
	b.Remaining(Group{Planned: 10, Cost: planfile.GroupCost{EstimateUSD: 2, UpperBoundUSD: 6}}, 4)
	b.Remaining(Group{Planned: 5, Cost: planfile.GroupCost{EstimateUSD: 1, UpperBoundUSD: 1}}, 9) // more logged than planned: nothing left
	if math.Abs(b.UpperBoundUSD-3.6) > 1e-12 || math.Abs(b.EstimateUSD-1.2) > 1e-12 || b.PlanUpperBound != 7 {
		t.Fatalf("remaining %+v", b)
	}
	if b.Over() || math.Abs(b.Total()-9.1) > 1e-12 {
		t.Errorf("$9.10 of $10 is within budget: %+v", b)
	}
	b.SpentOtherUSD = 1.5
	if !b.Over() {
		t.Errorf("$10.10 of $10 is over budget")
	}
	var out bytes.Buffer
	b.Print(&out)
	if !strings.Contains(out.String(), "OVER BUDGET") || !strings.Contains(out.String(), "$1.50 in other plans' logs") {
		t.Errorf("print: %s", out.String())
	}
	if err := b.OverError("allow-over-budget"); !strings.Contains(err.Error(), "nothing was run") || !strings.Contains(err.Error(), "--allow-over-budget") {
		t.Errorf("refusal: %v", err)
	}
}

// The gate fails closed and never takes an unpriced call for $0: a ceiling
// or a total that is not a finite number is over; calls spent or planned
// with no price make the total no bound, shown as such and refused unless
// allowed.
func TestBudgetFailsClosed(t *testing.T) {
	for _, b := range []Budget{{CeilingUSD: math.NaN()}, {CeilingUSD: 10, SpentDataUSD: math.NaN()}, {CeilingUSD: 10, UpperBoundUSD: math.Inf(1)}, {CeilingUSD: math.Inf(1)}} {
		if !b.Over() {
			t.Errorf("%+v is within budget", b)
		}
	}
	b := Budget{CeilingUSD: 10, SpentDataUSD: 1}
	b.Remaining(Group{Planned: 4, Cost: planfile.GroupCost{EstimateUSD: 1, UpperBoundUSD: 2}}, 0)
	if b.Over() || b.Unbounded() {
		t.Fatalf("$3 of $10, all priced: %+v", b)
	}
	b.Unpriced = []string{"mockllm/xstest-judge"}
	if !b.Unbounded() {
		t.Error("a plan calling an unpriced judge is bounded")
	}
	b.AddUnpriced(8, []string{"mockllm/b", "mockllm/a"})
	b.AddUnpriced(2, []string{"mockllm/a"})
	var out bytes.Buffer
	b.Print(&out)
	for _, want := range []string{"within budget for the priced calls only", "unpriced, not in these figures (never $0): 10 calls so far (mockllm/a, mockllm/b) and the plan's calls of mockllm/xstest-judge"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("print lacks %q:\n%s", want, out.String())
		}
	}
	r := &Run{Budget: b}
	if err := r.Refused("allow-over-budget", "allow-unpriced"); err == nil || !strings.Contains(err.Error(), "--allow-unpriced") || !strings.Contains(err.Error(), "nothing was run") {
		t.Errorf("an unbounded budget: %v", err)
	}
	r.Config.AllowUnpriced = true
	if err := r.Refused("allow-over-budget", "allow-unpriced"); err != nil {
		t.Errorf("allowed: %v", err)
	}
	// what is done: nothing left to run, nothing planned unpriced
	done := Budget{CeilingUSD: 10, Unpriced: []string{"x"}}
	done.Remaining(Group{Planned: 4}, 4)
	if done.Unbounded() {
		t.Error("a finished plan's unpriced estimate makes it unbounded")
	}
}

// Every line counts a group's records one way: planned = in its logs + run
// now + left, whatever the figures given.
func TestCount(t *testing.T) {
	for _, c := range []struct{ planned, before, now, in, run, left int }{
		{144, 65, 79, 65, 79, 0}, {144, 65, 20, 65, 20, 59}, {10, 12, 3, 10, 0, 0}, {10, 4, 9, 4, 6, 0}, {10, -1, -2, 0, 0, 10},
	} {
		got := Count(c.planned, c.before, c.now)
		if got != (Tally{c.planned, c.in, c.run, c.left}) || got.InLogs+got.RunNow+got.Left != got.Planned {
			t.Errorf("Count(%d, %d, %d) = %+v", c.planned, c.before, c.now, got)
		}
	}
}
