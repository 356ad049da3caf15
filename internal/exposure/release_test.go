package exposure

import (
	"context"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// pinnedRelease is the inspect-evals version requirements.txt pins; the
// expectations below are about that release.
const pinnedRelease = "0.26.0"

// installedPackage finds the inspect_evals package of the repository's
// virtual environment, walking up from the test's folder to go.mod.
func installedPackage(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			break
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod above the test folder")
		}
		dir = parent
	}
	site, _ := filepath.Glob(filepath.Join(dir, ".venv", "lib", "python*", "site-packages"))
	for _, s := range site {
		pkg := filepath.Join(s, "inspect_evals")
		if _, err := os.Stat(filepath.Join(pkg, "__init__.py")); err != nil {
			continue
		}
		dist, _ := filepath.Glob(filepath.Join(s, "inspect_evals-*.dist-info"))
		if len(dist) != 1 || !strings.HasPrefix(filepath.Base(dist[0]), "inspect_evals-"+pinnedRelease+".") {
			t.Fatalf("%s holds %v, not inspect_evals %s: run `make venv` to install requirements.txt", s, dist, pinnedRelease)
		}
		return pkg
	}
	t.Fatalf("no inspect_evals package in %s: run `make venv` to create the virtual environment from requirements.txt (inspect-evals==%s)",
		filepath.Join(dir, ".venv"), pinnedRelease)
	return ""
}

// TestSeedCatalogueOnRelease scans the pinned inspect-evals release and
// checks the evals the code survey (seed 000, section 2) names for criteria
// 1-3, at the place the release has them.
func TestSeedCatalogueOnRelease(t *testing.T) {
	res, err := Scan(context.Background(), installedPackage(t))
	if err != nil {
		t.Fatal(err)
	}
	found := map[string]Finding{}
	evalsBy := map[int32]map[string]bool{}
	for _, f := range res.Findings {
		found[key(f)] = f
		if evalsBy[f.Criterion] == nil {
			evalsBy[f.Criterion] = map[string]bool{}
		}
		evalsBy[f.Criterion][f.Eval] = true
	}
	if len(res.Evals) != 129 || len(res.BadSyntax) != 0 {
		t.Errorf("scanned %d evals (%d files with syntax errors), want 129 and none", len(res.Evals), len(res.BadSyntax))
	}

	// Section 2 of the seed, eval by eval. Every expectation is met by
	// 0.26.0; the finding keys say where.
	seed := []struct {
		eval  string
		crit  int32
		seed  string
		found []string // keys of the findings that meet it
	}{
		{"hle", 1, "preset helper, as {score: INCORRECT, confidence: 100} (hle/scorers.py:54, 148, 218)",
			[]string{"hle c1 hle/scorers.py:148", "hle c1 hle/scorers.py:218"}},
		{"frontierscience", 1, "preset helper, INCORRECT (frontierscience/frontierscience.py:144-145)",
			[]string{"frontierscience c1 frontierscience/frontierscience.py:145"}},
		{"uccb", 1, "preset helper, INCORRECT default (uccb/uccb.py:110-117)",
			[]string{"uccb c1 uccb/uccb.py:112"}},
		{"xstest", 1, "preset helper, INCORRECT (xstest/xstest.py:98-106)",
			[]string{"xstest c1 xstest/xstest.py:99"}},
		{"fortress", 1, "preset helper: adversarial 0.0, benign CORRECT (fortress/scorer.py:187-195, 258-266)",
			[]string{"fortress c1 fortress/scorer.py:189", "fortress c1 fortress/scorer.py:264"}},

		{"simpleqa", 2, "judge, no guard (simpleqa/scorer.py:108-118)",
			[]string{"simpleqa c2 simpleqa/scorer.py:117"}},
		{"browse_comp", 2, "judge, no guard (browse_comp/browse_comp.py:221-241)",
			[]string{"browse_comp c2 browse_comp/browse_comp.py:218"}},
		{"strong_reject", 2, "judge, no guard (strong_reject/scorer.py:135-141)",
			[]string{"strong_reject c2 strong_reject/scorer.py:140"}},
		{"coconot", 2, "model_graded_qa-style judge, no empty guard (coconot/scorer.py:87-108)",
			[]string{"coconot c2 coconot/coconot.py:168", "coconot c2 coconot/scorer.py:103"}},
		{"abstention_bench", 2, "model_graded_qa-style judge, no empty guard (abstention_bench/utils.py:216-237)",
			[]string{"abstention_bench c2 abstention_bench/utils.py:232"}},
		{"sosbench", 2, "judge on reasoning + text (sosbench/sosbench.py:89-92)",
			[]string{"sosbench c2 sosbench/sosbench.py:99"}},
		{"cyberseceval_4", 2, "CyberSecEval4 MITRE: two-LLM expansion and judge chain (cyberseceval_4/mitre/scorers.py:145-186)",
			[]string{"cyberseceval_4 c2 cyberseceval_4/mitre/scorers.py:167", "cyberseceval_4 c2 cyberseceval_4/mitre/scorers.py:186"}},
		{"agentic_misalignment", 2, "judge, no guard (agentic_misalignment/scorers.py:28-40)",
			[]string{"agentic_misalignment c2 agentic_misalignment/scorers.py:36"}},

		{"xstest", 3, "max_tokens=256 (xstest/xstest.py:98-108)",
			[]string{"xstest c3 xstest/xstest.py:108 =256"}},
		{"coconot", 3, "max_tokens=256",
			[]string{"coconot c3 coconot/coconot.py:184 =256"}},
	}
	for _, s := range seed {
		for _, k := range s.found {
			if _, ok := found[k]; !ok {
				t.Errorf("seed: %s criterion %d, %s: no finding %q", s.eval, s.crit, s.seed, k)
			}
		}
	}
	// The preset helper skips the judge: none of its evals has an unguarded
	// judge.
	for _, eval := range []string{"hle", "frontierscience", "uccb", "xstest", "fortress"} {
		if evalsBy[critUnguardedJudge][eval] {
			t.Errorf("%s: criterion 2 reported, but the seed says the preset helper guards its judge", eval)
		}
	}
	for _, k := range []string{"xstest c3 xstest/xstest.py:108 =256", "coconot c3 coconot/coconot.py:184 =256"} {
		if f := found[k]; !strings.Contains(f.Detail, "the model under test (Task config)") {
			t.Errorf("%s: detail %q, want the model under test", k, f.Detail)
		}
	}

	// Where the release, or the scan's reading of it, differs from the
	// seed's wording. No expectation above is unmet; these rows record what
	// the seed does not say and assert it.
	differs := []struct {
		eval    string
		crit    int32
		seed    string
		release string
		found   []string
		absent  []string // keys that must not be there
	}{
		{"simpleqa", 2, "the original scorer calls an unguarded judge",
			"also the default scorer (\"tool\"): simpleqa_schema_tool_scorer returns utils.schema_tool_graded_scorer, whose judge is unguarded; reported at the eval's call into the helper",
			[]string{"simpleqa c2 simpleqa/scorer.py:155"}, nil},
		{"cyberseceval_4", 2, "names the MITRE task",
			"the scan groups by top-level folder, so MITRE is part of eval cyberseceval_4, whose autonomous_uplift, autopatching, multilingual_prompt_injection and multiturn_phishing judges are unguarded too",
			[]string{
				"cyberseceval_4 c2 cyberseceval_4/autonomous_uplift/scorers.py:132",
				"cyberseceval_4 c2 cyberseceval_4/autopatching/scorers.py:133",
				"cyberseceval_4 c2 cyberseceval_4/multilingual_prompt_injection/scorers.py:22",
				"cyberseceval_4 c2 cyberseceval_4/multiturn_phishing/scorers.py:139",
			}, nil},
		{"healthbench", 2, "bypasses the judge by hand (healthbench/scorer.py:673-679)",
			"the main scorer does (criterion 1), but the meta-evaluation scorer's judge (_evaluate_criterion) has no guard",
			[]string{"healthbench c1 healthbench/scorer.py:674", "healthbench c2 healthbench/scorer.py:535"}, nil},
		{"persistbench", 2, "not bypassed: raises only if output.empty (persistbench/scorers.py:143-144)",
			"the same: output.empty reported as criterion 1 (no choices only) and the judge as unguarded, with that note",
			[]string{"persistbench c1 persistbench/scorers.py:143", "persistbench c2 persistbench/scorers.py:154"}, nil},
		{"frontierscience", 1, "`if not state.output` never fires (frontierscience/frontierscience.py:165)",
			"reported as a criterion 1 check that never fires, next to the research scorer's real test",
			[]string{"frontierscience c1 frontierscience/frontierscience.py:165", "frontierscience c1 frontierscience/frontierscience.py:179"}, nil},
		{"air_bench", 2, "bypasses the judge by hand in the annotate solver (air_bench/air_bench.py:136-139)",
			"the judge runs in a solver, which criterion 2 (judges in scorers) does not count; the empty tests are criterion 1",
			[]string{"air_bench c1 air_bench/air_bench.py:138", "air_bench c1 air_bench/air_bench.py:164"}, nil},
		{"paperbench", 4, "_classify_reply reads stop_reason and refusal blocks of the judge's reply (paperbench/score/simple_judge.py:210-239)",
			"the same reads; the scan does not trace their receiver to the judge (it comes from a method call)",
			[]string{
				"paperbench c4 paperbench/score/simple_judge.py:224",
				"paperbench c4 paperbench/score/simple_judge.py:239",
				"paperbench c4 paperbench/score/simple_judge.py:462",
			}, nil},
		{"simpleqa", 4, "_is_grader_refusal reads the judge's stop_reason (utils/scorers.py:124-137)",
			"reported for the evals that call schema_tool_graded_scorer, on a judge's reply",
			[]string{"simpleqa c4 simpleqa/scorer.py:155", "vqa_rad c4 vqa_rad/scorer.py:106"}, nil},
	}
	for _, d := range differs {
		for _, k := range d.found {
			if _, ok := found[k]; !ok {
				t.Errorf("%s criterion %d (seed: %s; release: %s): no finding %q", d.eval, d.crit, d.seed, d.release, k)
			}
		}
		for _, k := range d.absent {
			if _, ok := found[k]; ok {
				t.Errorf("%s criterion %d: unexpected finding %q", d.eval, d.crit, k)
			}
		}
	}
	if evalsBy[critUnguardedJudge]["air_bench"] {
		t.Error("air_bench: criterion 2 reported for a judge in a solver")
	}
	if f := found["persistbench c2 persistbench/scorers.py:154"]; !strings.Contains(f.Detail, "only reads output.empty") {
		t.Errorf("persistbench criterion 2 detail lacks the output.empty note: %q", f.Detail)
	}
	if f := found["simpleqa c4 simpleqa/scorer.py:155"]; !strings.Contains(f.Detail, "reads stop_reason of a judge's reply") {
		t.Errorf("simpleqa criterion 4 detail: %q", f.Detail)
	}

	// The seed: nothing reads stop_reason or a refusal flag of the model
	// under test, and nothing sets fail_on_refusal or retry_refusals.
	var c4 []string
	for e := range evalsBy[critRefusalSignal] {
		c4 = append(c4, e)
	}
	sort.Strings(c4)
	if strings.Join(c4, " ") != "paperbench simpleqa vqa_rad" {
		t.Errorf("criterion 4 evals = %v, want paperbench simpleqa vqa_rad", c4)
	}
	for _, f := range res.Findings {
		if f.Criterion == critRefusalSignal && (strings.Contains(f.Detail, "model under test") && !strings.Contains(f.Detail, "not traced") || strings.Contains(f.Detail, "sets ")) {
			t.Errorf("%s: %s", key(f), f.Detail)
		}
	}
}
