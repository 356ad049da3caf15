package planfile

import (
	"errors"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"empties/internal/cliutil"
)

// grp is a wide plan of one valid group with one field ("key": value) replaced.
func grp(field string) string {
	g := map[string]string{"eval": `"x"`, "route": `"gpt/x"`, "task": `"inspect_evals/x"`, "model": `"m"`, "samples": `[]`}
	k, v, _ := strings.Cut(strings.TrimPrefix(field, `"`), `": `)
	g[k] = v
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(g)) {
		parts = append(parts, `"`+k+`": `+g[k])
	}
	return `{"kind": "wide", "groups": [{` + strings.Join(parts, ", ") + `}]}`
}

func TestReadRefusesWhatItCannotRun(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct{ json, want string }{
		{`{"kind": "tight", "groups": []}`, `plan kind "tight"`},
		{`{"kind": "wide", "groups": [{"eval": "x", "task": "", "model": "m", "samples": []}]}`, "no task"},
		{`{"kind": "control", "groups": [{"eval": "x", "task": "t", "model": "", "samples": []}]}`, "no model to re-run"},
		{`{"kind": "partc", "groups": [{"eval": "x", "task": "t", "samples": [{"id": "1", "id_type": "str"}]}]}`, "no forms"},
		{`{"kind": "partb", "groups": [{"eval": "x", "task": "t", "samples": [{"id": "1", "id_type": "str"}]}]}`, "no reply to replay"},
		{`{"kind": "wide", "groups": [{"eval": "x", "task": "t", "model": "m", "samples": [{"id": "1", "id_type": "float"}]}]}`, "id_type"},
		{`not json`, "not a plan of empties select"},
		// names are data, never paths: refused with the group and field named
		{grp(`"eval": "../../victim"`), `group 1 (../../victim gpt/x): eval "../../victim" is not a name`},
		{grp(`"eval": "/etc"`), `eval "/etc" is not a name`},
		{grp(`"eval": "."`), `eval "." is not a name`},
		{grp(`"eval": ".empties-logs"`), `eval ".empties-logs" is not a name`},
		{grp(`"eval": "a b"`), `eval "a b" is not a name`},
		{grp(`"route": "../../../.."`), `route "../../../..": part ".." is not a name`},
		{grp(`"route": "root"`), ``}, // a route of one part is fine
		{grp(`"route": "gpt/../../x"`), `route "gpt/../../x": part ".." is not a name`},
		{grp(`"route": "/abs/olute"`), `route "/abs/olute": part is empty`},
		{grp(`"task": "../../evil.py@task"`), `task "../../evil.py@task": part ".." is not a name`},
		{grp(`"metadata": {"empties_arm": "../x"}`), `metadata empties_arm "../x"`},
		// money: finite, not negative, an upper bound at least the estimate
		{grp(`"cost": {"estimate_usd": -1000, "upper_bound_usd": 1}`), "cost.estimate_usd is -1000"},
		{grp(`"cost": {"estimate_usd": 1, "upper_bound_usd": -1000}`), "cost.upper_bound_usd is -1000"},
		{grp(`"cost": {"estimate_usd": 5, "upper_bound_usd": 1}`), "below its estimate_usd"},
		{grp(`"cost": {"estimate_usd": 1e400, "upper_bound_usd": 1e400}`), "not a plan of empties select"},
		{grp(`"cost": {"estimate_usd": NaN, "upper_bound_usd": 1}`), "not a plan of empties select"},
		{`{"kind": "wide", "groups": [], "cost": {"spent_usd": -3}}`, "cost.spent_usd is -3"},
	} {
		p := filepath.Join(dir, "p.json")
		os.WriteFile(p, []byte(c.json), 0o644)
		_, err := Read(p)
		var usage *cliutil.UsageError
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s: %v, want it read", c.json, err)
		case c.want != "" && (!errors.As(err, &usage) || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%s: %v, want a usage error saying %q", c.json, err, c.want)
		}
	}
	// a plan that cannot be read is the command's mistake too (exit 2)
	var usage *cliutil.UsageError
	if _, err := Read(dir); !errors.As(err, &usage) || !strings.Contains(err.Error(), "cannot read the plan: is a directory") {
		t.Errorf("a folder given as the plan: %v", err)
	}
	if _, err := Read(filepath.Join(dir, "none.json")); err == nil || !strings.Contains(err.Error(), "empties select") {
		t.Errorf("a missing plan: %v", err)
	}
	ok := filepath.Join(dir, "ok.json")
	os.WriteFile(ok, []byte(`{"kind": "partc", "groups": [{"eval": "x", "task": "t", "samples": [{"id": "1", "id_type": "int", "forms": [{"name": "empty", "text": "", "repeats": 1}]}]}]}`), 0o644)
	if p, err := Read(ok); err != nil || p.Groups[0].Samples[0].Forms[0].Name != "empty" {
		t.Errorf("a Part C plan: %v", err)
	}
}
