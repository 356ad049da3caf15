package exposure

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden Markdown under testdata/exposure/")

const fixtures = "../../testdata/exposure"

// key formats a finding as "eval c<criterion> file:line", with " =value"
// for a resolved max_tokens value.
func key(f Finding) string {
	k := fmt.Sprintf("%s c%d %s:%d", f.Eval, f.Criterion, f.File, f.Line)
	if f.Value != nil {
		k += " =" + *f.Value
	}
	return k
}

// Each case is a miniature inspect_evals tree under testdata/exposure/<case>,
// named for the scenario it reproduces. want lists every finding, exactly;
// has lists fragments the detail of a finding must contain.
func TestScanFixtures(t *testing.T) {
	cases := []struct {
		name      string
		path      string // below testdata/exposure
		evals     []string
		badSyntax []string
		want      []string
		has       map[string][]string
	}{
		{
			name:  "preset helper wraps the judge",
			path:  "preset-wraps-judge",
			evals: []string{"factory_eval", "qa_eval"},
			want: []string{
				// preset_score_on_no_response(model_graded_qa(...)) inline: guarded.
				"qa_eval c1 src/inspect_evals/qa_eval/qa_eval.py:16",
				"qa_eval c3 src/inspect_evals/qa_eval/qa_eval.py:19 =256",
				// The factory returns preset(score) and score calls the
				// model_graded_fact built in the factory: guarded. The helper
				// is called as shared.preset_score_on_no_response.
				"factory_eval c1 src/inspect_evals/factory_eval/scorer.py:17",
			},
			has: map[string][]string{
				"qa_eval c1 src/inspect_evals/qa_eval/qa_eval.py:16": {
					"calls preset_score_on_no_response (src/inspect_evals/utils/scorers.py:9)",
					"`not state.output.completion.strip()`",
					"no_response_value=INCORRECT (default)",
				},
				"factory_eval c1 src/inspect_evals/factory_eval/scorer.py:17": {"no_response_value=CORRECT"},
				"qa_eval c3 src/inspect_evals/qa_eval/qa_eval.py:19 =256":     {"the model under test (Task config)"},
			},
		},
		{
			name:  "judges with no guard",
			path:  "judge-without-guard",
			evals: []string{"bare_judge", "choices_only", "own_judge"},
			want: []string{
				// model_graded_qa imported as `graded`, handed to Task.
				"bare_judge c2 src/inspect_evals/bare_judge/bare_judge.py:9",
				// output.empty is tested, but it only catches "no choices".
				"choices_only c1 src/inspect_evals/choices_only/choices_only.py:13",
				"choices_only c2 src/inspect_evals/choices_only/choices_only.py:15",
				// The judge model comes from a helper that returns get_model(...).
				"own_judge c2 src/inspect_evals/own_judge/own_judge.py:18",
			},
			has: map[string][]string{
				"bare_judge c2 src/inspect_evals/bare_judge/bare_judge.py:9": {
					"judge model_graded_qa(...)", "handed to Task(...)",
				},
				"choices_only c2 src/inspect_evals/choices_only/choices_only.py:15": {
					"judge call judge.generate(...)", "only reads output.empty",
				},
				"own_judge c2 src/inspect_evals/own_judge/own_judge.py:18": {
					"own_judge_scorer.score ← own_judge_scorer ← own_judge",
				},
			},
		},
		{
			name:  "guard in a helper the scorer calls",
			path:  "guard-in-helper",
			evals: []string{"module_guard", "shared_guard", "state_guard", "text_guard"},
			want: []string{
				// Each judge is guarded, so there is no criterion 2 at all; the
				// tests are reported where they are.
				"state_guard c1 src/inspect_evals/state_guard/state_guard.py:11",
				// is_blank(text) tests a parameter that its caller fills with
				// the completion.
				"text_guard c1 src/inspect_evals/text_guard/text_guard.py:12",
				// A helper in utils/ is reported at the eval's call.
				"shared_guard c1 src/inspect_evals/shared_guard/shared_guard.py:14",
				// A helper in another module of the eval, imported relatively,
				// that raises.
				"module_guard c1 src/inspect_evals/module_guard/checks.py:6",
			},
			has: map[string][]string{
				"shared_guard c1 src/inspect_evals/shared_guard/shared_guard.py:14": {
					"calls no_reply (src/inspect_evals/utils/checks.py:6)", "`len(state.output.completion) == 0`",
				},
			},
		},
		{
			name:  "judge call in a nested function",
			path:  "judge-in-nested-function",
			evals: []string{"nested_guarded", "nested_judge", "shared_judge"},
			want: []string{
				"nested_judge c2 src/inspect_evals/nested_judge/nested_judge.py:14",
				// Same nested judge, but its caller returns early on an empty
				// completion.
				"nested_guarded c1 src/inspect_evals/nested_guarded/nested_guarded.py:16",
				// The judge lives in utils/judges.py; the eval's call into it is
				// reported. utils' unused_judge reaches no eval: not reported.
				"shared_judge c2 src/inspect_evals/shared_judge/shared_judge.py:10",
			},
			has: map[string][]string{
				"nested_judge c2 src/inspect_evals/nested_judge/nested_judge.py:14": {
					"nested_judge_scorer.score.ask ← nested_judge_scorer.score",
				},
				"shared_judge c2 src/inspect_evals/shared_judge/shared_judge.py:10": {
					"in grade_with_llm.score (src/inspect_evals/utils/judges.py:12), reached from here",
				},
			},
		},
		{
			name:  "max_tokens through variables, PATH holding inspect_evals/",
			path:  "max-tokens-through-variables",
			evals: []string{"tokens"},
			want: []string{
				"tokens c1 inspect_evals/tokens/tokens.py:54",
				"tokens c3 inspect_evals/tokens/tokens.py:17 =256",
				"tokens c3 inspect_evals/tokens/tokens.py:22 =512",
				"tokens c3 inspect_evals/tokens/tokens.py:27 =1024",
				"tokens c3 inspect_evals/tokens/tokens.py:32 =64",
				"tokens c3 inspect_evals/tokens/tokens.py:38 =1024",
				"tokens c3 inspect_evals/tokens/tokens.py:44 =None",
				"tokens c3 inspect_evals/tokens/tokens.py:48",
				"tokens c3 inspect_evals/tokens/tokens.py:57 =300",
			},
			has: map[string][]string{
				"tokens c3 inspect_evals/tokens/tokens.py:22 =512":  {"via LOCAL_CAP (inspect_evals/tokens/tokens.py:12)"},
				"tokens c3 inspect_evals/tokens/tokens.py:27 =1024": {"via IMPORTED_CAP (inspect_evals/tokens/_constants.py:1)"},
				"tokens c3 inspect_evals/tokens/tokens.py:32 =64":   {"default of parameter max_tokens of tokens_parameter_default", "the model under test (generate solver)"},
				"tokens c3 inspect_evals/tokens/tokens.py:38 =1024": {"via cap (inspect_evals/tokens/tokens.py:37) ← LOCAL_CAP", "the model under test (Task config)"},
				"tokens c3 inspect_evals/tokens/tokens.py:44 =None": {"None leaves the provider's default"},
				"tokens c3 inspect_evals/tokens/tokens.py:48":       {"max_tokens=limit, not a constant: parameter limit of tokens_no_default has no default"},
				"tokens c3 inspect_evals/tokens/tokens.py:57 =300":  {"defaults.JUDGE_MAX_TOKENS (inspect_evals/tokens/defaults.py:1)", "the judge (get_model config in a scorer)"},
			},
		},
		{
			name:  "max_tokens through variables, PATH is the package folder",
			path:  "max-tokens-through-variables/inspect_evals",
			evals: []string{"tokens"},
			want: []string{
				"tokens c1 tokens/tokens.py:54",
				"tokens c3 tokens/tokens.py:17 =256",
				"tokens c3 tokens/tokens.py:22 =512",
				"tokens c3 tokens/tokens.py:27 =1024",
				"tokens c3 tokens/tokens.py:32 =64",
				"tokens c3 tokens/tokens.py:38 =1024",
				"tokens c3 tokens/tokens.py:44 =None",
				"tokens c3 tokens/tokens.py:48",
				"tokens c3 tokens/tokens.py:57 =300",
			},
		},
		{
			name:  "refusal signals",
			path:  "refusal-signals",
			evals: []string{"judge_refusal", "refusal_aware"},
			want: []string{
				// stop_reason of the model's output before the judge: a guard,
				// so no criterion 2 for refusal_aware.
				"refusal_aware c4 src/inspect_evals/refusal_aware/refusal_aware.py:15",
				"refusal_aware c4 src/inspect_evals/refusal_aware/refusal_aware.py:18",
				"refusal_aware c4 src/inspect_evals/refusal_aware/refusal_aware.py:30",
				"refusal_aware c4 src/inspect_evals/refusal_aware/refusal_aware.py:32",
				// stop_reason of the judge's reply, after the judge: no guard.
				"judge_refusal c2 src/inspect_evals/judge_refusal/judge_refusal.py:13",
				"judge_refusal c4 src/inspect_evals/judge_refusal/judge_refusal.py:14",
			},
			has: map[string][]string{
				"refusal_aware c4 src/inspect_evals/refusal_aware/refusal_aware.py:15": {"reads stop_reason of the model under test's output"},
				"refusal_aware c4 src/inspect_evals/refusal_aware/refusal_aware.py:18": {"refusal flag"},
				"refusal_aware c4 src/inspect_evals/refusal_aware/refusal_aware.py:30": {"retry_refusals=3"},
				"refusal_aware c4 src/inspect_evals/refusal_aware/refusal_aware.py:32": {"fail_on_refusal=True"},
				"judge_refusal c4 src/inspect_evals/judge_refusal/judge_refusal.py:14": {"reads stop_reason of a judge's reply"},
			},
		},
		{
			name:  "emptiness tests and look-alikes",
			path:  "empty-checks",
			evals: []string{"checks"},
			want: []string{
				"checks c1 src/inspect_evals/checks/checks.py:13", // not state.output: never fires
				"checks c1 src/inspect_evals/checks/checks.py:15", // state.output.empty
				"checks c1 src/inspect_evals/checks/checks.py:17", // not state.output.completion
				"checks c1 src/inspect_evals/checks/checks.py:20", // answer == "" (answer from the completion)
				"checks c1 src/inspect_evals/checks/checks.py:22", // len(completion) == 0
				// Not findings: len(answer.split()) > 1 (line 24), a test of
				// a model reply in a solver (line 35), and the solver's
				// get_model().generate, which is the model under test.
			},
			has: map[string][]string{
				"checks c1 src/inspect_evals/checks/checks.py:13": {"never fires"},
				"checks c1 src/inspect_evals/checks/checks.py:15": {"no choices"},
				"checks c1 src/inspect_evals/checks/checks.py:17": {"tests the completion for emptiness"},
			},
		},
		{
			name:      "syntax error recovered",
			path:      "syntax-error-recovery",
			evals:     []string{"broken"},
			badSyntax: []string{"src/inspect_evals/broken/broken.py"},
			want: []string{
				// The task before the broken def is read in full; the test in
				// the broken `if` (no colon) is lost to error recovery.
				"broken c2 src/inspect_evals/broken/broken.py:12",
				"broken c3 src/inspect_evals/broken/broken.py:12 =128",
			},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res, err := Scan(context.Background(), filepath.Join(fixtures, tc.path))
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(res.Evals, tc.evals) {
				t.Errorf("evals = %v, want %v", res.Evals, tc.evals)
			}
			if !reflect.DeepEqual(res.BadSyntax, tc.badSyntax) {
				t.Errorf("files with syntax errors = %v, want %v", res.BadSyntax, tc.badSyntax)
			}
			got := map[string]Finding{}
			var keys []string
			for _, f := range res.Findings {
				got[key(f)] = f
				keys = append(keys, key(f))
			}
			want := append([]string(nil), tc.want...)
			sort.Strings(want)
			sort.Strings(keys)
			if !reflect.DeepEqual(keys, want) {
				t.Errorf("findings:\n got %s\nwant %s", strings.Join(keys, "\n     "), strings.Join(want, "\n     "))
				for _, f := range res.Findings {
					t.Logf("%s: %s | %s", key(f), f.Code, f.Detail)
				}
			}
			for k, frags := range tc.has {
				f, ok := got[k]
				if !ok {
					t.Errorf("%s: no such finding", k)
					continue
				}
				for _, frag := range frags {
					if !strings.Contains(f.Detail, frag) {
						t.Errorf("%s: detail lacks %q:\n%s", k, frag, f.Detail)
					}
				}
			}
		})
	}
}

// TestMarkdownGolden compares the Markdown of one fixture with the committed
// copy; run `go test ./internal/exposure/ -update` to rewrite it.
func TestMarkdownGolden(t *testing.T) {
	res, err := Scan(context.Background(), filepath.Join(fixtures, "refusal-signals"))
	if err != nil {
		t.Fatal(err)
	}
	res.Path = "refusal-signals" // independent of where the test runs
	got := renderMarkdown(res)
	golden := filepath.Join(fixtures, "refusal-signals", "exposure.md")
	if *update {
		if err := os.WriteFile(golden, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("exposure.md differs from %s (run with -update to accept):\n%s", golden, lineDiff(string(want), string(got)))
	}
}

// lineDiff lists the lines that differ, for a failure message.
func lineDiff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	var b strings.Builder
	for i := 0; i < len(w) || i < len(g); i++ {
		var wl, gl string
		if i < len(w) {
			wl = w[i]
		}
		if i < len(g) {
			gl = g[i]
		}
		if wl != gl {
			fmt.Fprintf(&b, "line %d\n- %s\n+ %s\n", i+1, wl, gl)
		}
	}
	return b.String()
}

// TestTruncatedSources scans every fixture eval file cut short at many
// points: the trees tree-sitter recovers from such input lack fields the
// scan reads, and it must neither crash nor fail.
func TestTruncatedSources(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(fixtures, "*", "src", "inspect_evals", "*", "*.py"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no fixture files (%v)", err)
	}
	preset, err := os.ReadFile(filepath.Join(fixtures, "preset-wraps-judge", "src", "inspect_evals", "utils", "scorers.py"))
	if err != nil {
		t.Fatal(err)
	}
	for _, file := range files {
		src, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		for cut := 0; cut < len(src); cut += 53 {
			root := t.TempDir()
			pkg := filepath.Join(root, "inspect_evals")
			for name, body := range map[string][]byte{
				"__init__.py":                nil,
				"utils/scorers.py":           preset,
				"cut/__init__.py":            nil,
				"cut/" + filepath.Base(file): src[:cut],
			} {
				p := filepath.Join(pkg, filepath.FromSlash(name))
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(p, body, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			if _, err := Scan(context.Background(), root); err != nil {
				t.Errorf("%s cut at byte %d: %v", file, cut, err)
			}
		}
	}
}
