package scorevalue

import (
	"bytes"
	"encoding/json"
	"math"
	"os/exec"
	"strings"
	"testing"

	"empties/internal/testutil"
)

// Project's float is what the pinned inspect_ai's own value_to_float gives
// for the same JSON value (run in the project's virtual environment), on
// every shape a score value takes.
func TestProjectIsValueToFloat(t *testing.T) {
	raws := []string{`"C"`, `"P"`, `"I"`, `"N"`, `"c"`, `"yes"`, `"Yes"`, `"TRUE"`, `"no"`, `"false"`,
		`"0.25"`, `" 2 "`, `"1_000"`, `"_1"`, `"0x10"`, `"nan"`, `"inf"`, `"abc"`, `""`,
		`1`, `0`, `-3`, `2.5`, `1e3`, `true`, `false`, `NaN`, `Infinity`, `-Infinity`, `[1]`, `{"a": 1}`}
	script := `
import json, math, sys, logging
logging.disable(logging.CRITICAL)
from inspect_ai.scorer._metric import value_to_float
f = value_to_float()
out = []
for raw in json.load(sys.stdin):
    v = f(json.loads(raw))
    out.append("nan" if math.isnan(v) else repr(v))
print(json.dumps(out))
`
	in, _ := json.Marshal(raws)
	cmd := exec.Command(testutil.Path(t, ".venv", "bin", "python"), "-c", script)
	cmd.Stdin = bytes.NewReader(in)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("inspect_ai's value_to_float: %v: %s", err, stderr.String())
	}
	var want []string
	if err := json.Unmarshal(out, &want); err != nil {
		t.Fatal(err)
	}
	for i, raw := range raws {
		_, f, _ := Project([]byte(raw))
		var w float64
		switch want[i] {
		case "nan":
			w = math.NaN()
		case "inf":
			w = math.Inf(1)
		case "-inf":
			w = math.Inf(-1)
		default:
			if err := json.Unmarshal([]byte(strings.TrimSuffix(want[i], ".0")), &w); err != nil {
				t.Fatalf("%s: python said %s", raw, want[i])
			}
		}
		if f == nil || !(*f == w || math.IsNaN(*f) && math.IsNaN(w)) {
			t.Errorf("%s: Project gives %v, value_to_float %s", raw, deref(f), want[i])
		}
	}
}

func deref(f *float64) any {
	if f == nil {
		return nil
	}
	return *f
}

// The kind and text form of each shape; null (the legacy ScoreEvent form of
// NaN) is NaN, where value_to_float(None) would be 0.
func TestProjectKinds(t *testing.T) {
	for _, c := range []struct {
		raw, kind, text string
		nan             bool
	}{
		{`null`, "null", "", true},
		{`"C"`, "str", "C", false},
		{`1`, "int", "1", false},
		{`1.0`, "float", "1.0", false},
		{`NaN`, "float", "NaN", true},
		{`true`, "bool", "true", false},
		{`[1, 2]`, "list", "", false},
		{`{"a": 1}`, "dict", "", false},
	} {
		kind, f, s := Project([]byte(c.raw))
		text := ""
		if s != nil {
			text = *s
		}
		if kind != c.kind || text != c.text || f == nil || math.IsNaN(*f) != c.nan {
			t.Errorf("%s: kind %s, text %q, float %v", c.raw, kind, text, deref(f))
		}
	}
}

// Numbers beyond the float range project as Python reads them: 1e999 is
// inf (json.loads, pydantic); an integer too large for a float has no float,
// since value_to_float's float(int) raises OverflowError (the reader refuses
// such a sample before it gets here). Before, both projected to 0.
func TestProjectOutOfRange(t *testing.T) {
	big := "1" + strings.Repeat("0", 400)
	for _, c := range []struct {
		raw, kind string
		want      *float64
	}{
		{"1e999", "float", ptrF(math.Inf(1))},
		{"-1e999", "float", ptrF(math.Inf(-1))},
		{"1e-999", "float", ptrF(0)},
		{"123456789012345678901234567890", "int", ptrF(1.2345678901234568e+29)},
		{big, "int", nil},
		{"-" + big, "int", nil},
		{`"1e999"`, "str", ptrF(0)}, // not a finite number: 0 after a warning
	} {
		kind, f, _ := Project([]byte(c.raw))
		if kind != c.kind || (f == nil) != (c.want == nil) || f != nil && *f != *c.want {
			t.Errorf("%.20s: %s %v, want %s %v", c.raw, kind, f, c.kind, c.want)
		}
	}
}

func ptrF(v float64) *float64 { return &v }
