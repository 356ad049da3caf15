package plan

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

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
	} {
		p := filepath.Join(dir, "p.json")
		os.WriteFile(p, []byte(c.json), 0o644)
		if _, err := Read(p); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error saying %q", c.json, err, c.want)
		}
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
