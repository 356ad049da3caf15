package pypkg_test

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"empties/internal/classify"
	"empties/internal/ingest"
	"empties/internal/ingest/ingesttest"
	"empties/internal/testutil"
	"empties/internal/vocab"
)

// python returns the project's interpreter (the pinned inspect_ai) and an
// environment whose PYTHONPATH puts this repository's python/src first, so
// the tests read this checkout's package whatever copy the shared venv holds.
// Without .venv the tests fail: they are part of what CI checks.
func python(t *testing.T) (string, []string) {
	t.Helper()
	return testutil.Python(t)
}

func runPython(t *testing.T, dir string, stdin []byte, args ...string) []byte {
	t.Helper()
	return runPythonEnv(t, dir, stdin, nil, args...)
}

// runPythonEnv is runPython with more variables in the environment.
func runPythonEnv(t *testing.T, dir string, stdin []byte, more []string, args ...string) []byte {
	t.Helper()
	py, env := python(t)
	cmd := exec.Command(py, args...)
	cmd.Dir, cmd.Env = dir, append(env, more...)
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("python %s: %v\n%s\n%s", strings.Join(args, " "), err, stdout.String(), stderr.String())
	}
	return stdout.Bytes()
}

// The package's own tests (pytest) and its type check (mypy --strict). The
// tests of the frames run this checkout's binary (EMPTIES_BIN).
func TestPythonPackage(t *testing.T) {
	t.Parallel()
	dir := testutil.Path(t, "python")
	out := runPythonEnv(t, dir, nil, []string{"EMPTIES_BIN=" + testutil.Binary(t)}, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-W", "ignore::DeprecationWarning", "--durations=5", "tests")
	t.Logf("pytest: %s", out)
	out = runPython(t, dir, nil, "-m", "mypy", "--strict", "--cache-dir", filepath.Join(dir, ".mypy_cache"), "src", "tests")
	t.Logf("mypy: %s", lastLine(out))
}

func lastLine(b []byte) string {
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	return lines[len(lines)-1]
}

// Every shipped error form matches exactly the texts Go's matches: each
// form's texts, and variants of them with the characters where Go's RE2 and
// Python's re read a pattern differently (\v, U+001C and U+00A0 are not \s in
// RE2; $ is the end of the text; (?i) folds k and s with U+212A and U+017F
// but i with neither U+0130 nor U+0131).
func TestErrorFormsMatchAsGo(t *testing.T) {
	t.Parallel()
	bases := []string{
		"Invalid prompt: your prompt was flagged as potentially violating our usage policy. Please try again with a different prompt.",
		"Invalid prompt: we've limited access to this content for safety reasons.",
		"Your request was rejected as a result of our safety system.",
		"The response was filtered due to the prompt triggering Azure OpenAI's content management policy.",
		"This model's maximum context length is 128000 tokens. However, your messages resulted in 131072 tokens.",
		"BLOCKED: BlockedReason.PROHIBITED_CONTENT\nThe prompt was blocked.",
		"BLOCKED: SAFETY",
		"BLOCKED: UNKNOWN",
		"(no content)",
		"Content violates usage guidelines. Team: x, Failed check: SAFETY_CHECK_TYPE_BIO",
		"The model said: Failed check: SAFETY_CHECK_TYPE_CSAM",
		"Sorry, but I am unable to help with that request.",
		"Paris is the capital of France.",
	}
	odd := []string{"", " ", "\n", "\t", "\v", "\f", "\r", "\x1c", "\x1f", "\u00a0", "\u3000", "\u0085", "x"}
	seen := map[string]bool{}
	var texts []string
	add := func(s string) {
		if !seen[s] {
			seen[s] = true
			texts = append(texts, s)
		}
	}
	for _, b := range bases {
		for _, v := range []string{b, strings.ToUpper(b), strings.ToLower(b),
			strings.ReplaceAll(b, "i", "\u0130"), strings.ReplaceAll(b, "i", "\u0131"),
			strings.ReplaceAll(strings.ReplaceAll(b, "s", "\u017f"), "k", "\u212a")} {
			for _, pre := range odd {
				for _, post := range odd {
					add(pre + v + post)
				}
			}
		}
	}
	in, err := json.Marshal(texts)
	if err != nil {
		t.Fatal(err)
	}
	out := runPython(t, "", in, "-c", `
import json, sys
from empties import vocabulary
texts = json.load(sys.stdin)
json.dump([[f.name for f in vocabulary().error_forms if f.matches(t)] for t in texts], sys.stdout)
`)
	var got [][]string
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if len(got) != len(texts) {
		t.Fatalf("%d answers for %d texts", len(got), len(texts))
	}
	diffs, matched := 0, 0
	for i, text := range texts {
		var want []string
		for _, f := range classify.ErrorForms {
			if f.Matches(text) {
				want = append(want, f.Name)
			}
		}
		if len(want) > 0 {
			matched++
		}
		if strings.Join(want, ",") != strings.Join(got[i], ",") {
			diffs++
			if diffs <= 20 {
				t.Errorf("%q: Go matches %v, the package %v", text, want, got[i])
			}
		}
	}
	if matched < len(texts)/10 || len(texts)-matched < len(texts)/10 {
		t.Errorf("%d of %d texts match a form: the battery should hold both kinds", matched, len(texts))
	}
	t.Logf("%d texts, %d matching a form, %d differences", len(texts), matched, diffs)
}

// The differential test of the classifier, under both reply rules: every
// sample of the wild corpus, the inspect-ai-tests corpus, the fixtures, the
// agents' logs and the demo gets the same class, rule, non-answer,
// tools_offered and reply source from `python -m empties classify --reply
// first` as ingest's reply (replies.class ...), and from `--reply final` as
// ingest's final reply (replies.final_class ..., with the final call's
// model_calls.tools_offered).
func TestClassifyDifferential(t *testing.T) {
	t.Parallel()
	paths := []string{
		filepath.Join(testutil.WildCorpus(t), "logs"),
		testutil.SharedCorpus(t),
		testutil.Path(t, "testdata", "logs"),
		testutil.Path(t, "testdata", "classify"),
		testutil.Path(t, "testdata", "profiles"),
		testutil.Path(t, "testdata", "logsets"),
		testutil.Path(t, "testdata", "turns"),
		testutil.Path(t, "data", "demo", "logs"),
	}
	dir := ingesttest.Build(t, ingest.Config{Paths: paths, Workers: 2})
	for _, rule := range []struct{ name, query string }{
		{vocab.ReplyFirst, `SELECT l.path, r.sample_id, r.epoch::VARCHAR, r.class, r.class_rule, r.non_answer::VARCHAR,
		  coalesce(r.tools_offered::VARCHAR, 'null'), r.reply_source FROM replies r JOIN logs l USING (log_id)`},
		{vocab.ReplyFinal, `SELECT l.path, r.sample_id, r.epoch::VARCHAR, r.final_class, r.final_class_rule, r.final_non_answer::VARCHAR,
		  coalesce((CASE WHEN r.final_call_index IS NULL THEN r.tools_offered ELSE m.tools_offered END)::VARCHAR, 'null'), r.reply_source
		  FROM replies r JOIN logs l USING (log_id)
		  LEFT JOIN model_calls m ON m.log_id = r.log_id AND m.sample_id = r.sample_id AND m.epoch = r.epoch AND m.call_index = r.final_call_index`},
	} {
		goRows := map[string][]string{}
		for _, r := range testutil.Query(t, dir, rule.query) {
			k := r[0] + "\x00" + r[1] + "\x00" + r[2]
			if _, dup := goRows[k]; dup {
				t.Fatalf("two reply rows for %q", k)
			}
			goRows[k] = r[3:]
		}
		outFile := filepath.Join(t.TempDir(), "classes.jsonl")
		runPython(t, "", nil, append([]string{"-m", "empties", "classify", "--reply", rule.name, "--out", outFile}, paths...)...)
		diffs, classes := compareClasses(t, rule.name, goRows, readClasses(t, outFile))
		if len(goRows) < 4000 {
			t.Errorf("%s: only %d samples compared", rule.name, len(goRows))
		}
		for _, c := range classify.Classes() {
			if classes[c] == 0 {
				t.Errorf("%s: no sample of class %s compared", rule.name, c)
			}
		}
		t.Logf("reply rule %s: %d samples of %d paths, %d differences; by class %v", rule.name, len(goRows), len(paths), diffs, classes)
	}
}

// readClasses reads `python -m empties classify`'s lines by log, sample id
// and epoch.
func readClasses(t *testing.T, file string) map[string][]string {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	pyRows := map[string][]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var r struct {
			Log          string `json:"log"`
			SampleID     any    `json:"sample_id"`
			Epoch        int    `json:"epoch"`
			Class        string `json:"class"`
			Rule         string `json:"rule"`
			NonAnswer    bool   `json:"non_answer"`
			ToolsOffered *bool  `json:"tools_offered"`
			ReplySource  string `json:"reply_source"`
		}
		d := json.NewDecoder(strings.NewReader(line))
		d.UseNumber()
		if err := d.Decode(&r); err != nil {
			t.Fatalf("%v: %s", err, line)
		}
		id := ""
		switch v := r.SampleID.(type) {
		case string:
			id = v
		case json.Number:
			id = v.String()
		default:
			t.Fatalf("sample id %v (%T)", v, v)
		}
		tools := "null"
		if r.ToolsOffered != nil {
			tools = strconv.FormatBool(*r.ToolsOffered)
		}
		k := r.Log + "\x00" + id + "\x00" + strconv.Itoa(r.Epoch)
		if _, dup := pyRows[k]; dup {
			t.Fatalf("the package wrote two lines for %q", k)
		}
		pyRows[k] = []string{r.Class, r.Rule, strconv.FormatBool(r.NonAnswer), tools, r.ReplySource}
	}
	return pyRows
}

// compareClasses reports every sample whose row differs, or is on one side
// only, and returns the differences and the samples per class that agree.
func compareClasses(t *testing.T, rule string, goRows, pyRows map[string][]string) (int, map[string]int) {
	t.Helper()
	keys := map[string]bool{}
	for k := range goRows {
		keys[k] = true
	}
	for k := range pyRows {
		keys[k] = true
	}
	sorted := make([]string, 0, len(keys))
	for k := range keys {
		sorted = append(sorted, k)
	}
	sort.Strings(sorted)
	diffs := 0
	classes := map[string]int{}
	for _, k := range sorted {
		g, gok := goRows[k]
		p, pok := pyRows[k]
		name := strings.ReplaceAll(k, "\x00", " ")
		switch {
		case !gok:
			t.Errorf("%s: %s: the package classified it, ingest has no reply row", rule, name)
		case !pok:
			t.Errorf("%s: %s: ingest has a reply row, the package wrote no line", rule, name)
		case strings.Join(g, " ") != strings.Join(p, " "):
			t.Errorf("%s: %s: ingest (class rule non_answer tools_offered reply_source) %v, the package %v", rule, name, g, p)
		default:
			classes[g[0]]++
			continue
		}
		diffs++
	}
	return diffs, classes
}
