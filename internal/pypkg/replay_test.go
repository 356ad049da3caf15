package pypkg_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The replay solver is found by name from an installed package: in a fresh
// venv with ./python installed, `inspect eval TASK --solver empties/replay`
// (inspect_ai's own command line, which finds the name through the
// package's inspect_ai entry point) replays the given text, calls no model
// (none/none raises if called), and the log stores the text as given.
func TestReplaySolverIsRegistered(t *testing.T) {
	t.Parallel()
	tmp := t.TempDir()
	src := pythonSource(t, tmp)
	venv := filepath.Join(tmp, "venv")
	py := freshVenv(t, venv)
	run(t, tmp, py, "-m", "pip", "install", "--quiet", "--no-deps", "--no-build-isolation", src)
	taskFile := filepath.Join(tmp, "qa.py")
	os.WriteFile(taskFile, []byte(`from inspect_ai import Task, task
from inspect_ai.dataset import Sample
from inspect_ai.scorer import exact


@task
def qa():
    return Task(dataset=[Sample(id=1, input="Say nothing.", target="")], scorer=exact())
`), 0o644)
	logs := filepath.Join(tmp, "logs")
	// inspect reads -S values as YAML: a bare text= is no value, so the
	// empty and whitespace texts are given quoted
	for text, arg := range map[string]string{"": `text=""`, " \n": `text=" \n"`} {
		dir := filepath.Join(logs, map[string]string{"": "empty", " \n": "whitespace"}[text])
		run(t, tmp, py, "-m", "inspect_ai", "eval", filepath.Base(taskFile), "--model", "none/none", "--solver", "empties/replay",
			"-S", arg, "--log-dir", dir, "--display", "none", "--log-level", "error")
		check := `import glob, json, sys
from inspect_ai.log import read_eval_log
(path,) = glob.glob(sys.argv[1] + "/*.eval")
log = read_eval_log(path)
s = log.samples[0]
print(json.dumps({"status": log.status, "solver": log.plan.steps[0].solver, "completion": s.output.completion,
                  "messages": [m.text for m in s.messages if m.role == "assistant"], "replayed": s.metadata.get("empties_replayed"),
                  "calls": sum(1 for e in s.events if e.event == "model")}))`
		out := strings.TrimSpace(run(t, tmp, py, "-c", check, dir))
		want := `{"status": "success", "solver": "empties/replay", "completion": ` + pyJSON(text) + `, "messages": [` + pyJSON(text) +
			`], "replayed": ` + pyJSON(text) + `, "calls": 0}`
		if !strings.HasSuffix(out, want) {
			t.Errorf("--solver empties/replay -S text=%q: the log says\n%s\nwant\n%s", text, out, want)
		}
	}
}

func pyJSON(s string) string {
	return `"` + strings.ReplaceAll(strings.ReplaceAll(s, `\`, `\\`), "\n", `\n`) + `"`
}
