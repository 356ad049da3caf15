package evallog

import (
	"os"
	"os/exec"
	"slices"
	"testing"

	"empties/internal/testutil"
)

// inspect_model.go is what scripts/fixtures/inspect_model.py reads from the
// pinned inspect_ai's models now: a new pin whose models changed fails here
// until `make fixtures` rewrites it. It needs the project's .venv (`make
// venv`); without it the test fails, it is not skipped.
func TestInspectModelIsCurrent(t *testing.T) {
	python := testutil.Path(t, ".venv", "bin", "python")
	if _, err := os.Stat(python); err != nil {
		t.Fatalf("needs the pinned inspect_ai in .venv (run `make venv`): %v", err)
	}
	cmd := exec.Command(python, testutil.Path(t, "scripts", "fixtures", "inspect_model.py"), "inspect_model.go", "--check")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
}

// The statuses and cache modes the code names are inspect_ai's (the
// generated sets), and the sets are all of them.
func TestNamedStatusesAndCacheModesAreInspects(t *testing.T) {
	for _, c := range []struct {
		named []string
		set   []string
	}{
		{[]string{StatusStarted, StatusSuccess, StatusCancelled, StatusError}, Statuses()},
		{[]string{CacheRead, CacheWrite}, CacheModes()},
	} {
		if !slices.Equal(slices.Sorted(slices.Values(c.named)), c.set) {
			t.Errorf("named %v, inspect_ai's %v", c.named, c.set)
		}
	}
}

// The shape rules on their own: pydantic's lax scalars, and what each
// check refuses.
func TestShapeRules(t *testing.T) {
	for _, c := range []struct {
		raw  string
		v    int64
		ok   bool
		null bool
	}{
		{"1", 1, true, false}, {`"1"`, 1, true, false}, {`" 1 "`, 1, true, false}, {`"1.0"`, 1, true, false},
		{`"1_000"`, 1000, true, false}, {"1.0", 1, true, false}, {"true", 1, true, false}, {"null", 0, true, true},
		{"1.5", 0, false, false}, {`"1.5"`, 0, false, false}, {`"1e3"`, 0, false, false}, {`"x"`, 0, false, false},
		{`""`, 0, false, false}, {"1e999", 0, false, false},
	} {
		v, null, ok := pyInt([]byte(c.raw))
		if v != c.v || ok != c.ok || null != c.null {
			t.Errorf("pyInt(%s) = %d %v %v, want %d %v %v", c.raw, v, null, ok, c.v, c.null, c.ok)
		}
	}
	for raw, want := range map[string]string{`"yes"`: "true", `"No"`: "false", "1": "true", "0.0": "false", `"t"`: "true", `"banana"`: "error", "2": "error", `" yes"`: "error"} {
		var b Bool
		got := "error"
		if err := b.UnmarshalJSON([]byte(raw)); err == nil {
			got = map[bool]string{true: "true", false: "false"}[bool(b)]
		}
		if got != want {
			t.Errorf("Bool(%s) = %s, want %s", raw, got, want)
		}
	}
	for s, ok := range map[string]bool{"2026-01-02T03:04:05.123456+00:00": true, "2026-01-02T03:04:05Z": true, "2026-01-02": true,
		"2026-01-02 03:04": true, "20260102T030405": true, "yesterday": false, "2026-1-2": false, "": true} {
		if got := checkDatetime("t", s) == nil; got != ok {
			t.Errorf("checkDatetime(%q) ok = %v, want %v", s, got, ok)
		}
	}
	for raw, ok := range map[string]bool{`"C"`: true, "1": true, "[1, \"a\", true]": true, `{"a": 1, "b": null}`: true,
		"null": false, `[null]`: false, `{"a": {"b": 1}}`: false, `[[1]]`: false} {
		if got := checkValue("v", []byte(raw)) == nil; got != ok {
			t.Errorf("checkValue(%s) ok = %v, want %v", raw, got, ok)
		}
	}
}
